package analysis

import (
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
)

// StepResult is a finished step as the run document records it: its
// summary under the connection strategy, with its open-loop facts (see
// OpenLoopInto).
func StepResult(res *load.StepResult, strategy string, open *load.OpenSettings) document.Result {
	r := document.FromSummary(res.Step.Workload, res.Step.Op, res.Step.Size,
		res.Step.Concurrency, strategy, res.Wall, res.Summary)
	r.SeriesIntervalS = res.SeriesInterval.Seconds()
	if ps := res.Step.Parts; ps != nil {
		if n, errs, ms, mbps := ps.Result(); n+errs > 0 {
			r.Parts = &document.Parts{SizeBytes: ps.Size, Parallel: ps.Parallel, Count: n, Errors: errs, TotalMs: ms, MBPerS: mbps}
		}
	}
	OpenLoopInto(&r, res, open)
	return r
}

// OpenLoopInto adds a step's open-loop facts to its result: the summary
// from the other latency origin, and with a rate, what was offered against
// what was achieved, late and dropped, and the start lags.
func OpenLoopInto(r *document.Result, res *load.StepResult, o *load.OpenSettings) {
	if res.Uncorrected != nil {
		r.SetUncorrected(*res.Uncorrected)
	}
	if o.Rate == "" {
		return
	}
	done := float64(res.Summary.Count + res.Summary.Errors)
	r.OpenLoop = &document.OpenLoop{Rate: o.Rate, Arrivals: o.Arrivals, LatencyFrom: o.Origin(), MaxInflight: o.MaxInflight,
		OfferedOps: o.Offered(res), Late: res.Late, Dropped: res.Dropped,
		MaxStartLagMs: float64(res.StartLag) / 1e6}
	r.OpenLoop.StartLagMs = res.StartLags
	if len(res.RateSteps) > 0 {
		r.RateSteps = RateSteps(res.RateSteps, o.Share(res.Step))
		r.Knee = FindKnee(r.RateSteps)
	}
	if s := res.Wall.Seconds(); s > 0 {
		r.OpenLoop.AchievedOpsPerS = done / s
	}
}
