// Package stats turns Samples into distributions: one Recorder (a set of HDR
// histograms) per worker fed without locks, merged after the step, then
// summarised. Memory does not grow with the number of samples.
package stats

import "github.com/objbench/objbench/internal/nettrace"

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
// time, so P90 <= P50, as PerfKitBenchmarker and seed 001 report it.
type Throughput struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// Group is the summary of a subset of requests (first of each worker, or the later ones).
type Group struct {
	Count          int64                    `json:"count"`
	TTFB           Dist                     `json:"ttfb"`
	Total          Dist                     `json:"total"`
	Phases         [nettrace.NumPhases]Dist `json:"phases"`
	ReusedFraction float64                  `json:"reused_fraction"`
}

// Summary is the merged result of one step.
type Summary struct {
	Count         int64            `json:"count"`  // successful operations
	Errors        int64            `json:"errors"` // failed operations
	ErrorsByClass map[string]int64 `json:"errors_by_class"`
	Retries       int64            `json:"retries"`
	Requests      int64            `json:"requests"` // HTTP exchanges of successful operations
	Bytes         int64            `json:"bytes"`    // bytes moved by successful operations
	// Reconnects counts later requests that opened a new connection (or
	// replaced one the server had dropped): not errors, but not reuse.
	Reconnects     int64                    `json:"reconnects"`
	TTFB           Dist                     `json:"ttfb"`
	Total          Dist                     `json:"total"`
	Phases         [nettrace.NumPhases]Dist `json:"phases"`
	MBps           Throughput               `json:"mb_per_s"`
	AggregateMBps  float64                  `json:"aggregate_mb_per_s"` // all bytes over the step's wall time
	ReusedFraction float64                  `json:"reused_fraction"`
	First          Group                    `json:"first"`
	Later          Group                    `json:"later"`

	// SilentRetries counts requests the transport re-sent on another
	// connection on its own (see nettrace.Sample.SilentRetries).
	SilentRetries int64 `json:"silent_retries"`
}
