package analysis

import (
	"math"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// mixedStep is one mixed step of wall seconds as a run records it: one
// result per op, each with the step's wall time. GETs move 1 KiB.
func mixedStep(wall float64, counts map[string]int64) []document.Result {
	var out []document.Result
	for _, op := range []string{"delete", "get", "head", "list", "put"} {
		if n, ok := counts[op]; ok {
			size := int64(0)
			if op == "get" || op == "put" {
				size = 1024
			}
			out = append(out, document.Result{Workload: "mixed", Op: op, SizeBytes: size, Concurrency: 64, Strategy: "pooled",
				Count: n, RequestsPerOp: 1, WallS: wall})
		}
	}
	return out
}

// TestCostPerHourCountsEachStepOnce: the hourly cost is the run's cost over
// the wall time of its steps, each step once, whatever number of results
// it has. Every figure below is worked out by hand at the S3 list prices
// (PUT, LIST $0.005 per 1000; GET, HEAD $0.0004 per 1000; DELETE free;
// egress $0.09 per 10^9 bytes).
func TestCostPerHourCountsEachStepOnce(t *testing.T) {
	t.Parallel()
	// The mix of the run: 1000 get, 300 put, 100 list, 50 head,
	// 50 delete in one step of 15 s.
	mix := map[string]int64{"get": 1000, "put": 300, "list": 100, "head": 50, "delete": 50}
	// requests: get 0.0004 + head 0.00002 + put 0.0015 + list 0.0005 = 0.00242;
	// egress: 1000 x 1024 B x 0.09 / 1e9 = 0.00009216.
	const mixUSD = 0.00242 + 0.00009216
	latency := document.Result{Workload: "latency", Op: "get", SizeBytes: 1024, Concurrency: 1, Strategy: "pooled",
		Count: 1000, RequestsPerOp: 1, WallS: 10} // 0.0004 + 0.00009216
	const latencyUSD = 0.0004 + 0.00009216
	merged := mixedStep(15.2, mix) // a merged mixed step: the shards' windows fall a little apart per op
	merged[1].WallS, merged[3].WallS = 15.0, 15.1
	cases := []struct {
		name    string
		results []document.Result
		wall    float64 // the steps' wall time, each step once
		usd     float64
	}{
		{"one mixed step: 15 s, not 5 x 15 s", mixedStep(15, mix), 15, mixUSD},
		{"a latency step then a mixed step", append([]document.Result{latency}, mixedStep(15, mix)...), 25, latencyUSD + mixUSD},
		{"two mixed steps one after the other", append(mixedStep(15, mix), mixedStep(15, mix)...), 30, 2 * mixUSD},
		{"a merged mixed step: its longest window", merged, 15.2, mixUSD},
		{"closed-loop steps each count", []document.Result{latency, latency}, 20, 2 * latencyUSD},
	}
	for _, c := range cases {
		d := labDoc(c.results...)
		cost := RunCost(d, DefaultPrices())
		if cost == nil {
			t.Fatalf("%s: no cost", c.name)
		}
		if math.Abs(cost.WallS-c.wall) > 1e-9 {
			t.Errorf("%s: wall %v s, want %v", c.name, cost.WallS, c.wall)
		}
		if math.Abs(cost.TotalUSD-c.usd) > 1e-6 {
			t.Errorf("%s: total $%v, want $%v", c.name, cost.TotalUSD, c.usd)
		}
		if want := math.Round(c.usd/c.wall*3600*1e6) / 1e6; math.Abs(cost.PerHourUSD-want) > 1.5e-6 {
			t.Errorf("%s: per hour $%v, want $%v", c.name, cost.PerHourUSD, want)
		}
	}
}

// TestStrategiesCostPerHour: strategies are timed one after the other, so
// their wall times add: 50 PUTs in 2 s and 50 in 3 s cost $0.0005 in 5 s.
func TestStrategiesCostPerHour(t *testing.T) {
	t.Parallel()
	d := &document.StrategiesDocument{Envelope: labDoc().Envelope, Strategies: []document.StrategyRow{
		{Strategy: "sdk-default", Op: "put", Objects: 50, WallS: 2, ObjectsPerS: 25, RequestsPerObject: 1, Available: true},
		{Strategy: "reused-connection", Op: "put", Objects: 50, WallS: 3, ObjectsPerS: 50.0 / 3, RequestsPerObject: 1, Available: true},
	}}
	c := StrategiesCost(d, DefaultPrices())
	if c == nil || c.WallS != 5 || c.TotalUSD != 0.0005 || c.PerHourUSD != 0.36 {
		t.Fatalf("cost %+v: want $0.0005 over 5 s, $0.36 per hour", c)
	}
	if d.Strategies[0].CostPerMillionUSD != 5 {
		t.Errorf("per million %v, want $5 (a PUT each)", d.Strategies[0].CostPerMillionUSD)
	}
}

// TestExplainCostPerHour: an explained program is one wall time, however
// many price classes its requests fall in.
func TestExplainCostPerHour(t *testing.T) {
	t.Parallel()
	env := labDoc().Envelope
	c := UsageCost(&env, []OpUsage{{Op: "put", Objects: 100, Requests: 100}, {Op: "get", Objects: 100, Requests: 100}}, 2, DefaultPrices())
	// 100 PUTs $0.0005 + 100 GETs $0.00004 = $0.00054 in 2 s: $0.972 an hour.
	if c == nil || c.WallS != 2 || c.TotalUSD != 0.00054 || c.PerHourUSD != 0.972 {
		t.Fatalf("cost %+v: want $0.00054 over 2 s, $0.972 per hour", c)
	}
}

func TestSteps(t *testing.T) {
	t.Parallel()
	mix := map[string]int64{"get": 1, "put": 1}
	lat := document.Result{Workload: "latency", Op: "get", WallS: 1}
	rs := append(append([]document.Result{lat, lat}, mixedStep(2, mix)...), mixedStep(3, mix)...)
	got := document.Steps(rs)
	want := [][2]int{{0, 1}, {1, 2}, {2, 4}, {4, 6}}
	if len(got) != len(want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("steps %v, want %v", got, want)
		}
	}
	if w := document.StepsWallS(rs); w != 7 {
		t.Errorf("wall %v, want 1+1+2+3", w)
	}
}
