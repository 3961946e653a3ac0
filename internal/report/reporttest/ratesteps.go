package reporttest

import "github.com/objbench/objbench/internal/document"

// RateStepsFixture is a run document with one open-loop result stepped
// through 100, 200 and 400/s against a store that carried 200/s on one
// prefix: its rate steps and knee.
func RateStepsFixture() *document.Document {
	d := Fixture()
	r := d.Results[0]
	r.RateSteps = []document.RateStep{
		{OfferedOpsPerS: 100, StartS: 0, EndS: 2, Count: 200, GoodputOpsPerS: 100, GoodputMBPerS: 0.1, Requests: 200,
			TotalMs: document.Dist{Count: 200, P50: 1.1, P99: 3.2}},
		{OfferedOpsPerS: 200, StartS: 2, EndS: 4, Count: 398, Errors: 2, GoodputOpsPerS: 199, GoodputMBPerS: 0.2, Requests: 400, Throttled: 2,
			ThrottledShare: 0.005, TotalMs: document.Dist{Count: 398, P50: 1.0, P99: 2.9}, ThrottledByPrefix: map[string]int64{"run/mix/": 2}},
		{OfferedOpsPerS: 400, StartS: 4, EndS: 6, Count: 402, Errors: 398, GoodputOpsPerS: 201, GoodputMBPerS: 0.21, Requests: 812, Throttled: 410,
			ThrottledShare: 0.505, Retries: 12, TotalMs: document.Dist{Count: 402, P50: 1.2, P99: 4.4}, ThrottledByPrefix: map[string]int64{"run/mix/": 410}},
	}
	r.Knee = &document.Knee{Found: true, Step: 2, RateOpsPerS: 201, GoodputOpsPerS: 201, CarriedOpsPerS: 200, ThrottledShare: 0.505,
		HotPrefix: "run/mix/", HotPrefixShare: 1, ThrottledPrefixes: 1}
	d.Results = []document.Result{r}
	return d
}
