package merge

import (
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// Two shards at half the rate each: their rows add up to the run's, the
// throttled share is the sums', the latency the worst shard's, and the knee
// is left to be found on the sums.
func TestSumRateSteps(t *testing.T) {
	t.Parallel()
	a := &document.Result{RateSteps: []document.RateStep{
		{OfferedOpsPerS: 50, EndS: 1, Count: 50, GoodputOpsPerS: 50, Requests: 50, TotalMs: document.Dist{P50: 1, P99: 3}},
		{OfferedOpsPerS: 100, StartS: 1, EndS: 2, Count: 50, Errors: 50, GoodputOpsPerS: 50, Requests: 100, Throttled: 50,
			TotalMs: document.Dist{P50: 1, P99: 4}, ThrottledByPrefix: map[string]int64{"run/": 50}},
	}, Knee: &document.Knee{Found: true}}
	b := &document.Result{RateSteps: []document.RateStep{
		{OfferedOpsPerS: 50, EndS: 1, Count: 50, GoodputOpsPerS: 50, Requests: 50, TotalMs: document.Dist{P50: 2, P99: 2}},
		{OfferedOpsPerS: 100, StartS: 1, EndS: 2.1, Count: 50, Errors: 50, GoodputOpsPerS: 50, Requests: 110, Throttled: 60, Retries: 10,
			TotalMs: document.Dist{P50: 1, P99: 5}, ThrottledByPrefix: map[string]int64{"run/": 60}},
	}}
	r := sumResults([]window{{res: a}, {res: b}}, 0, nil)
	if len(r.RateSteps) != 2 || r.Knee != nil {
		t.Fatalf("rate steps %+v, knee %+v: want two rows, no knee", r.RateSteps, r.Knee)
	}
	if s := r.RateSteps[0]; s.OfferedOpsPerS != 100 || s.GoodputOpsPerS != 100 || s.Count != 100 || s.TotalMs.P50 != 2 || s.TotalMs.P99 != 3 {
		t.Errorf("row 0: %+v", s)
	}
	if s := r.RateSteps[1]; s.OfferedOpsPerS != 200 || s.GoodputOpsPerS != 100 || s.Throttled != 110 || s.ThrottledShare != 110.0/210 ||
		s.Retries != 10 || s.EndS != 2.1 || s.ThrottledByPrefix["run/"] != 110 || s.TotalMs.P99 != 5 {
		t.Errorf("row 1: %+v", s)
	}
	if a.RateSteps[1].Throttled != 50 || a.RateSteps[1].ThrottledByPrefix["run/"] != 50 {
		t.Errorf("a shard's own rows changed: %+v", a.RateSteps[1])
	}
}
