package analysis

import (
	"context"
	"math"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
)

func TestSignificant(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	apart := stats.Change{Delta: 5, Lo: 1, Hi: 9}
	across := stats.Change{Delta: 1, Lo: -1, Hi: 3}
	tests := []struct {
		name string
		c    stats.Change
		mw   *float64
		want bool
	}{
		{"interval apart, no samples", apart, nil, true},
		{"interval across zero", across, nil, false},
		{"interval apart, p below alpha", apart, p(0.049), true},
		{"interval apart, p at alpha", apart, p(0.05), false},
		{"interval across zero, tiny p", across, p(0.0001), false},
		{"interval touching zero", stats.Change{Lo: 0, Hi: 3}, nil, false},
	}
	for _, tt := range tests {
		if got := Significant(tt.c, tt.mw); got != tt.want {
			t.Errorf("%s: Significant = %t, want %t", tt.name, got, tt.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		nA, nB      int
		significant bool
		delta       float64
		want        string
	}{
		{0, 10, true, -1, "no data"},
		{10, 0, true, 1, "no data"},
		{10, 10, false, -50, "no significant difference"},
		{10, 10, true, -0.1, "B faster"},
		{10, 10, true, 0.1, "B slower"},
		{10, 10, true, 0, "B slower"},
	}
	for _, tt := range tests {
		if got := Verdict(tt.nA, tt.nB, tt.significant, tt.delta); got != tt.want {
			t.Errorf("Verdict(%d, %d, %t, %g) = %q, want %q", tt.nA, tt.nB, tt.significant, tt.delta, got, tt.want)
		}
	}
}

// sweep is a run whose throughput GETs follow total = ttfb + size/rate.
func sweep(id, target string, ttfbMs, mbps float64, sizes ...int64) *Run {
	d := &document.Document{}
	for _, s := range sizes {
		d.Results = append(d.Results, document.Result{Workload: "throughput", Op: "get", SizeBytes: s, Count: 10,
			TotalMs: document.Dist{P50: ttfbMs + float64(s)/(mbps*1000)}})
	}
	return &Run{Meta: results.Run{ID: id, Command: "run", TargetURL: target}, Doc: d}
}

func TestCrossovers(t *testing.T) {
	t.Parallel()
	sizes := []int64{1 << 20, 4 << 20, 16 << 20}
	t.Run("lines cross", func(t *testing.T) {
		a := sweep("a", "s3://a", 10, 100, sizes...)
		b := sweep("b", "gs://b", 50, 1000, sizes...)
		xs := Crossovers(a, b)
		if len(xs) != 1 {
			t.Fatalf("got %d crossovers, want 1 (get only)", len(xs))
		}
		x := xs[0]
		// 10 + s/1e5 = 50 + s/1e6  =>  s = 40 / (1e-5 - 1e-6)
		if want := 40 / (1e-5 - 1e-6); math.Abs(x.SizeBytes-want) > want*1e-6 {
			t.Errorf("crossover at %g bytes, want %g", x.SizeBytes, want)
		}
		if x.Faster != "gs://b" {
			t.Errorf("faster above the crossover = %q, want the higher-rate run gs://b", x.Faster)
		}
		if math.Abs(x.FitA.TTFBms-10) > 1e-6 || math.Abs(x.FitB.MBps-1000) > 1e-6 || len(x.FitA.Points) != 3 {
			t.Errorf("fits %+v %+v, want TTFB 10 ms and 1000 MB/s from 3 points", x.FitA, x.FitB)
		}
	})
	t.Run("parallel fits never cross", func(t *testing.T) {
		xs := Crossovers(sweep("a", "s3://a", 10, 100, sizes...), sweep("b", "gs://b", 30, 100, sizes...))
		if len(xs) != 1 || xs[0].SizeBytes != 0 || xs[0].Faster != "" {
			t.Fatalf("parallel fits: %+v, want one entry with no crossover size and no faster run", xs)
		}
	})
	t.Run("crossing below zero size is none", func(t *testing.T) {
		xs := Crossovers(sweep("a", "s3://a", 10, 100, sizes...), sweep("b", "gs://b", 5, 1000, sizes...))
		if len(xs) != 1 || xs[0].SizeBytes > 0 || xs[0].Faster != "" {
			t.Fatalf("B faster everywhere: %+v, want no crossover in range", xs)
		}
	})
	t.Run("one size only", func(t *testing.T) {
		if xs := Crossovers(sweep("a", "s3://a", 10, 100, 1<<20), sweep("b", "gs://b", 50, 1000, sizes...)); len(xs) != 0 {
			t.Fatalf("one size cannot be fitted: got %+v", xs)
		}
	})
	t.Run("same target", func(t *testing.T) {
		if xs := Crossovers(sweep("a", "s3://a", 10, 100, sizes...), sweep("b", "s3://a", 50, 1000, sizes...)); xs != nil {
			t.Fatalf("two runs of one target: got %+v, want none", xs)
		}
	})
	t.Run("slower with size is not a fit", func(t *testing.T) {
		b := sweep("b", "gs://b", 50, 1000, sizes...)
		b.Doc.(*document.Document).Results[2].TotalMs.P50 = 1 // falls with size: slope < 0
		if xs := Crossovers(sweep("a", "s3://a", 10, 100, sizes...), b); len(xs) != 0 {
			t.Fatalf("a falling sweep: got %+v, want none", xs)
		}
	})
}

func TestLabel(t *testing.T) {
	t.Parallel()
	r := &Run{Meta: results.Run{TargetURL: "lab"}, Doc: &document.Document{Envelope: document.Envelope{Lab: &document.LabInfo{API: "gcs", Profile: "cross-region"}}}}
	if got := Label(r); got != "lab gcs:cross-region" {
		t.Errorf("lab run label = %q", got)
	}
	r.Meta.Labels = map[string]string{"env": "b", "az": "1"}
	if got := Label(r); got != "az=1,env=b" {
		t.Errorf("labelled run label = %q, want the labels sorted", got)
	}
}

func TestCompareStartup(t *testing.T) {
	t.Parallel()
	da, db := &document.StartupDocument{}, &document.StartupDocument{}
	a := &Run{Meta: results.Run{ID: "a", Command: "startup"}, Doc: da}
	b := &Run{Meta: results.Run{ID: "b", Command: "startup"}, Doc: db}
	var fast, slow []float64
	for i := range 60 {
		fast = append(fast, 100+float64(i%7))
		slow = append(slow, 200+float64(i%5))
	}
	da.Scenarios = []document.StartupScenario{{Scenario: "require", WallSamplesMs: slow}, {Scenario: "only-a", WallSamplesMs: slow}}
	db.Scenarios = []document.StartupScenario{{Scenario: "require", WallSamplesMs: fast}}
	c, err := Compare(context.Background(), nil, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 1 || c.Steps[0].Verdict != "B faster" || c.Steps[0].MannWhitneyP == nil {
		t.Fatalf("startup comparison %+v, want one step, B faster, with a Mann-Whitney p", c.Steps)
	}
}

func TestCompareMixedCommands(t *testing.T) {
	t.Parallel()
	a := &Run{Meta: results.Run{ID: "a", Command: "run"}, Doc: &document.Document{}}
	b := &Run{Meta: results.Run{ID: "b", Command: "strategies"}, Doc: &document.StrategiesDocument{}}
	c, err := Compare(context.Background(), nil, a, b)
	if err != nil || c.Note == "" || len(c.Steps) != 0 {
		t.Fatalf("run against strategies: %+v, %v; want a note and no steps", c, err)
	}
}
