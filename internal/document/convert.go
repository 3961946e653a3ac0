package document

import (
	"math"
	"time"

	"github.com/objbench/objbench/internal/stats"
)

// FromSummary turns one measured step into a Result of the JSON contract.
func FromSummary(workload, op string, size int64, concurrency int, strategy string, wall time.Duration, s stats.Summary) Result {
	r := Result{
		Workload: workload, Op: op, SizeBytes: size, Concurrency: concurrency, Strategy: strategy,
		Count: s.Count, Errors: s.Errors, Retries: s.Retries, Reconnects: s.Reconnects,
		SilentRetries:  s.SilentRetries,
		WallS:          wall.Seconds(),
		TTFBms:         s.TTFBms,
		TotalMs:        s.TotalMs,
		MBps:           s.MBps,
		AggregateMBps:  s.AggregateMBps,
		PhasesMs:       s.PhasesMs,
		ReusedFraction: s.ReusedFraction,
		ExpectSent:     s.ExpectSent,
		ExpectWaited:   s.ExpectWaited,
		FirstRequest:   s.FirstRequest,
		LaterRequests:  s.LaterRequests,
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
	r.ClientCPUusPerOp = stats.CPUPerOp(s.ClientCPU, s.Count+s.Errors)
	r.ClientCPUsPerGB = stats.CPUPerGB(s.ClientCPU, s.Bytes)
	r.ClientRunWaitUsPerOp = stats.CPUPerOp(s.ClientRunWait, s.Count+s.Errors)
	r.GC = s.GC
	return r
}

// Finite replaces NaN and infinities, which JSON cannot carry, by 0.
func Finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
