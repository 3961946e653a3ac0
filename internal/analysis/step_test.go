package analysis

import (
	"slices"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
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

func TestRunRecorder(t *testing.T) {
	t.Parallel()
	for _, keep := range []int{0, 100} {
		doc := &document.Document{}
		open := &load.OpenSettings{}
		rec := NewRunRecorder(doc, "fresh", open, keep)
		if rec.Cap() != keep {
			t.Errorf("keep %d: cap %d", keep, rec.Cap())
		}
		for i := 1; i <= 2; i++ {
			rec.Begin(i)
			w := stats.NewReservoir(rec.Cap())
			for j := range 3 {
				w.Add(0, &nettrace.Sample{Seq: j})
			}
			res := &load.StepResult{Step: &load.Step{Workload: "latency", Op: "get"}, Summary: stats.Summary{Count: int64(i)},
				Histograms: map[string][]byte{"total": {byte(i)}}, Kept: []*stats.Reservoir{w}}
			r := rec.Add(res)
			if r != &doc.Results[i-1] || r.Strategy != "fresh" || r.Count != int64(i) || res.Kept != nil {
				t.Errorf("keep %d step %d: result %+v, kept left %v", keep, i, r, res.Kept)
			}
		}
		if len(rec.Histograms) != 2 || rec.Histograms[1]["total"][0] != 2 {
			t.Errorf("keep %d: histograms %v", keep, rec.Histograms)
		}
		kept := slices.Collect(rec.Kept())
		if keep == 0 && len(kept) != 0 || keep > 0 && len(kept) != 6 {
			t.Fatalf("keep %d: %d kept", keep, len(kept))
		}
		for i, k := range kept {
			if want := i / 3; keep > 0 && k.Step != want {
				t.Errorf("kept %d from step %d, want %d", i, k.Step, want)
			}
		}
	}
}
