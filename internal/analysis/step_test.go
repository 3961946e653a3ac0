package analysis

import (
	"testing"
	"time"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/stats"
)

func TestStepResultOpenLoop(t *testing.T) {
	t.Parallel()
	step := &load.Step{Workload: load.Mixed, Op: "get", Size: 4096, Concurrency: 8}
	res := &load.StepResult{Step: step, Wall: 10 * time.Second, Summary: stats.Summary{Count: 650, Errors: 50},
		Uncorrected: &stats.Summary{TotalMs: stats.Dist{P50: 3}}, Late: 7, Dropped: 2, StartLag: 5 * time.Millisecond,
		StartLags: stats.Dist{P50: 0.5, P99: 4}}
	cases := []struct {
		name, rate      string
		offered, achvd  float64
		wantOpen, uncor bool
	}{
		{name: "closed loop: the other origin only", uncor: true},
		{name: "open loop: offered is the op's share of the mix", rate: "100", offered: 700, achvd: 70, wantOpen: true, uncor: true},
	}
	for _, c := range cases {
		o := load.OpenSettings{Rate: c.rate, Arrivals: "uniform", MaxInflight: 8, Mix: "get=70,put=30", Keys: 10, KeyDist: "uniform", Interval: time.Second}
		opts := load.Defaults()
		opts.Workloads = []string{load.Mixed}
		if err := o.Apply(&opts, "4KiB", "4KiB"); err != nil {
			t.Fatal(err)
		}
		r := StepResult(res, "pooled", &o)
		if r.Op != "get" || r.Strategy != "pooled" || r.Count != 650 {
			t.Errorf("%s: result %s/%s count %d", c.name, r.Op, r.Strategy, r.Count)
		}
		if (r.TotalUncorrectedMs != nil) != c.uncor {
			t.Errorf("%s: uncorrected %v", c.name, r.TotalUncorrectedMs)
		}
		if (r.OpenLoop != nil) != c.wantOpen {
			t.Fatalf("%s: open loop %+v", c.name, r.OpenLoop)
		}
		if r.OpenLoop == nil {
			continue
		}
		ol := r.OpenLoop
		if ol.OfferedOps != c.offered || ol.AchievedOpsPerS != c.achvd || ol.Late != 7 || ol.Dropped != 2 || ol.MaxStartLagMs != 5 ||
			ol.StartLagMs.P99 != 4 || ol.LatencyFrom != load.FromIntended || ol.MaxInflight != 8 {
			t.Errorf("%s: open loop %+v", c.name, ol)
		}
	}
}
