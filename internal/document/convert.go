package document

import (
	"math"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
)

// FromSummary turns one measured step into a Result of the JSON contract.
func FromSummary(workload, op string, size int64, concurrency int, strategy string, wall time.Duration, s stats.Summary) Result {
	r := Result{
		Workload: workload, Op: op, SizeBytes: size, Concurrency: concurrency, Strategy: strategy,
		Count: s.Count, Errors: s.Errors, Retries: s.Retries, Reconnects: s.Reconnects,
		SilentRetries:  s.SilentRetries,
		WallS:          wall.Seconds(),
		TTFBms:         dist(s.TTFB),
		TotalMs:        dist(s.Total),
		MBps:           Throughput{P50: s.MBps.P50, P90: s.MBps.P90, P99: s.MBps.P99},
		AggregateMBps:  s.AggregateMBps,
		PhasesMs:       phases(s.Phases),
		ReusedFraction: s.ReusedFraction,
		FirstRequest:   group(s.First),
		LaterRequests:  group(s.Later),
	}
	if len(s.ErrorsByClass) > 0 {
		r.ErrorsByClass = map[string]int64{}
		for k, v := range s.ErrorsByClass {
			r.ErrorsByClass[k] = v
		}
	}
	if s.Count > 0 {
		r.RequestsPerOp = float64(s.Requests) / float64(s.Count)
	}
	return r
}

func dist(d stats.Dist) Dist {
	return Dist{Min: d.Min, P50: d.P50, P90: d.P90, P99: d.P99, P999: d.P999, Max: d.Max, Mean: d.Mean, Stddev: d.Stddev}
}

func phases(ps [nettrace.NumPhases]stats.Dist) map[string]PhaseDist {
	m := make(map[string]PhaseDist, len(ps))
	for i, d := range ps {
		m[nettrace.Phase(i).String()] = PhaseDist{P50: d.P50, P90: d.P90, P99: d.P99, P999: d.P999, Mean: d.Mean}
	}
	return m
}

func group(g stats.Group) Group {
	return Group{Count: g.Count, TTFBms: dist(g.TTFB), TotalMs: dist(g.Total), PhasesMs: phases(g.Phases), ReusedFraction: g.ReusedFraction}
}

// Finite replaces NaN and infinities, which JSON cannot carry, by 0.
func Finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
