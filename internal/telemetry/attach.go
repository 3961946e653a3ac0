package telemetry

import (
	"context"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/probe"
)

// Telemetry is where a Prober's rounds are reported: OTLP traces (nil
// without a collector) and Prometheus metrics (nil unless asked for).
type Telemetry struct {
	Metrics *Metrics
	Tracer  *Tracer
}

// Attach hooks traces to the collector at endpoint (none when empty) and,
// withMetrics, metrics onto every round of p; version names the service.
func Attach(ctx context.Context, p *probe.Prober, endpoint, version string, withMetrics bool) (*Telemetry, error) {
	t := &Telemetry{}
	if endpoint != "" {
		tr, err := NewTracer(ctx, endpoint, version)
		if err != nil {
			return nil, err
		}
		tr.Labels = p.Labels
		t.Tracer = tr
		p.Hooks.OnRound = tr.Round
	}
	if withMetrics {
		m := NewMetrics()
		t.Metrics = m
		p.Hooks.OnSample = func(tg *probe.Target, s *nettrace.Sample) { m.Observe(tg.Info.URL, tg.Strategy, s) }
		p.Finished = func(r *probe.Round) { m.Round(r.Target.Info.URL, r.Failed) }
	}
	return t, nil
}

// Flush sends the traces buffered so far (a Lambda instance may be frozen
// once it answers); without a tracer it does nothing.
func (t *Telemetry) Flush(ctx context.Context) error {
	if t == nil || t.Tracer == nil {
		return nil
	}
	return t.Tracer.Flush(ctx)
}

// Close sends what traces are buffered, within 10 seconds, and stops the
// exporter.
func (t *Telemetry) Close(ctx context.Context) error {
	if t == nil || t.Tracer == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return t.Tracer.Shutdown(ctx)
}
