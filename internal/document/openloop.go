package document

import "github.com/objbench/objbench/internal/stats"

// OpenLoop is what an open-loop step planned and achieved. A rate the
// client could not keep shows here as an achieved rate below the offered
// one, with late and dropped operations, never as a success.
type OpenLoop struct {
	Rate     string `json:"rate"` // as given: "500", "100:2000:60s", "100,500"
	Arrivals string `json:"arrivals"`
	// LatencyFrom is the origin of ttfb_ms and total_ms: "intended" (the
	// default, corrected for coordinated omission) or "actual".
	LatencyFrom string `json:"latency_from"`
	MaxInflight int    `json:"max_inflight"`
	// OfferedOps is what the plan offered over the step's wall time;
	// AchievedOpsPerS the operations done (failed included) per second.
	OfferedOps      float64 `json:"offered_ops"`
	AchievedOpsPerS float64 `json:"achieved_ops_per_s"`
	Late            int64   `json:"late"`
	Dropped         int64   `json:"dropped"`
	// MaxStartLagMs is the most an operation started after its time;
	// StartLagMs the distribution of send - intended start (the pacer's
	// timing error while workers are free).
	MaxStartLagMs float64   `json:"max_start_lag_ms"`
	StartLagMs    PhaseDist `json:"start_lag_ms"`
}

// SetUncorrected adds the latency measured from the other origin.
func (r *Result) SetUncorrected(s stats.Summary) {
	t, tot := s.TTFBms, s.TotalMs
	r.TTFBUncorrectedMs, r.TotalUncorrectedMs = &t, &tot
}

// cleanOpen replaces the open-loop pointers with finite copies.
func (r *Result) cleanOpen() {
	if r.TTFBUncorrectedMs != nil {
		d := cleanDist(*r.TTFBUncorrectedMs)
		r.TTFBUncorrectedMs = &d
	}
	if r.TotalUncorrectedMs != nil {
		d := cleanDist(*r.TotalUncorrectedMs)
		r.TotalUncorrectedMs = &d
	}
	if r.OpenLoop != nil {
		o := *r.OpenLoop
		o.OfferedOps, o.AchievedOpsPerS, o.MaxStartLagMs = Finite(o.OfferedOps), Finite(o.AchievedOpsPerS), Finite(o.MaxStartLagMs)
		o.StartLagMs = cleanDist(o.StartLagMs)
		r.OpenLoop = &o
	}
}
