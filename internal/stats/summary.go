// Package stats turns Samples into distributions: one Recorder (a set of HDR
// histograms) per worker fed without locks, merged after the step, then
// summarised. Memory does not grow with the number of samples.
package stats

import (
	"time"

	"github.com/objbench/objbench/internal/nettrace"
)

// Dist summarises one latency distribution, in milliseconds.
type Dist struct {
	Count  int64   `json:"count"`
	Min    float64 `json:"min"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

// Throughput is per-request MB/s (10^6 bytes/s) at the latency percentiles:
// P90 is the throughput of the request at the 90th percentile of total
// time, so P90 <= P50, as PerfKitBenchmarker reports it.
type Throughput struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// Group is the summary of a subset of requests (first of each worker, or
// the later ones). Its fields and JSON keys are those of the objbench/v1
// document, which uses this type as is.
type Group struct {
	Count   int64 `json:"count"`
	TTFBms  Dist  `json:"ttfb_ms"`
	TotalMs Dist  `json:"total_ms"`
	// PhasesMs is keyed by phase name (nettrace.Phase.String), every phase present.
	PhasesMs       map[string]Dist `json:"phases_ms"`
	ReusedFraction float64         `json:"reused_fraction"`
}

// Phase is the distribution of phase p.
func (g Group) Phase(p nettrace.Phase) Dist { return g.PhasesMs[p.String()] }

// phaseMap is a PhasesMs with every phase, each from d(p).
func phaseMap(d func(p nettrace.Phase) Dist) map[string]Dist {
	m := make(map[string]Dist, nettrace.NumPhases)
	for p := range nettrace.NumPhases {
		m[p.String()] = d(p)
	}
	return m
}

// Summary is the merged result of one step. The document's Result takes
// its distributions as they are (same types, same field names).
type Summary struct {
	Count         int64            `json:"count"`  // successful operations
	Errors        int64            `json:"errors"` // failed operations
	ErrorsByClass map[string]int64 `json:"errors_by_class"`
	Retries       int64            `json:"retries"`
	Requests      int64            `json:"requests"` // HTTP exchanges of successful operations
	Bytes         int64            `json:"bytes"`    // bytes moved by successful operations
	// Reconnects counts later requests that opened a new connection (or
	// replaced one the server had dropped): not errors, but not reuse.
	Reconnects     int64           `json:"reconnects"`
	TTFBms         Dist            `json:"ttfb_ms"`
	TotalMs        Dist            `json:"total_ms"`
	PhasesMs       map[string]Dist `json:"phases_ms"` // keyed by phase name, every phase present
	MBps           Throughput      `json:"mb_per_s"`
	AggregateMBps  float64         `json:"aggregate_mb_per_s"` // all bytes over the step's wall time
	ReusedFraction float64         `json:"reused_fraction"`
	// ExpectSent is the fraction of successful operations that sent
	// "Expect: 100-continue"; ExpectWaited, of those whose client then
	// held the body for "100 Continue".
	ExpectSent    float64 `json:"expect_sent"`
	ExpectWaited  float64 `json:"expect_waited"`
	FirstRequest  Group   `json:"first_request"`
	LaterRequests Group   `json:"later_requests"`
	// ClientCPU is the process's CPU time (user plus system) across the
	// step (ProcessCPU); zero when not measured.
	ClientCPU time.Duration `json:"client_cpu_ns,omitempty"`
	// ClientRunWait is the time the process's threads waited for a CPU
	// across the step (ProcessRunWait); zero when not measured.
	ClientRunWait time.Duration `json:"client_run_wait_ns,omitempty"`
	// GC is the collector's budget and work across the step; nil when
	// not measured.
	GC *GC `json:"gc,omitempty"`

	// SilentRetries counts requests the transport re-sent on another
	// connection on its own (see nettrace.Sample.SilentRetries).
	SilentRetries int64 `json:"silent_retries"`
}
