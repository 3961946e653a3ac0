// Package telemetry exports what the probe measures to the tools users
// already watch: Prometheus metrics for /metrics, and OpenTelemetry traces
// over OTLP with one span per request and a child span per phase.
package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/objbench/objbench/internal/nettrace"
)

// Metrics are the probe's Prometheus collectors on a registry of their own.
type Metrics struct {
	reg      *prometheus.Registry
	ttfb     *prometheus.HistogramVec
	total    *prometheus.HistogramVec
	phase    *prometheus.HistogramVec
	requests *prometheus.CounterVec
	errors   *prometheus.CounterVec
	rounds   *prometheus.CounterVec
}

// latencyBuckets span 0.1 ms to 60 s, about four per decade.
var latencyBuckets = prometheus.ExponentialBucketsRange(0.0001, 60, 24)

// NewMetrics registers the collectors, with the Go runtime's and the
// process's (memory, goroutines) beside them.
func NewMetrics() *Metrics {
	labels := []string{"target", "op", "strategy", "reused"}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		ttfb: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "objbench_ttfb_seconds",
			Help: "Time to first byte of successful requests: operation start to the first response byte.", Buckets: latencyBuckets}, labels),
		total: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "objbench_total_seconds",
			Help: "Total latency of successful requests: operation start to the body fully read.", Buckets: latencyBuckets}, labels),
		phase: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "objbench_phase_seconds",
			Help: "Each phase of successful requests (dns, connect, tls, send, wait100, wait, recv).", Buckets: latencyBuckets},
			append(labels, "phase")),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "objbench_requests_total",
			Help: "Requests made, by result (ok or error)."}, []string{"target", "op", "strategy", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "objbench_errors_total",
			Help: "Failed requests by error class (timeout, reset, throttled, server, not_found, access_denied, ...)."},
			[]string{"target", "op", "strategy", "class"}),
		rounds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "objbench_probe_rounds_total",
			Help: "Probe rounds run, by whether every request succeeded."}, []string{"target", "result"}),
	}
	m.reg.MustRegister(m.ttfb, m.total, m.phase, m.requests, m.errors, m.rounds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Observe records one request.
func (m *Metrics) Observe(target, strategy string, s *nettrace.Sample) {
	if !s.OK() {
		class := s.ErrClass
		if class == "" {
			class = "other"
		}
		m.requests.WithLabelValues(target, s.Op, strategy, "error").Inc()
		m.errors.WithLabelValues(target, s.Op, strategy, class).Inc()
		return
	}
	m.requests.WithLabelValues(target, s.Op, strategy, "ok").Inc()
	reused := "false"
	if s.Reused {
		reused = "true"
	}
	m.ttfb.WithLabelValues(target, s.Op, strategy, reused).Observe(s.TTFB().Seconds())
	m.total.WithLabelValues(target, s.Op, strategy, reused).Observe(s.Total().Seconds())
	for _, p := range nettrace.Phases() {
		m.phase.WithLabelValues(target, s.Op, strategy, reused, p.String()).Observe(s.Phases[p].Seconds())
	}
}

// Round counts one finished round.
func (m *Metrics) Round(target string, failed int64) {
	result := "ok"
	if failed > 0 {
		result = "error"
	}
	m.rounds.WithLabelValues(target, result).Inc()
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
