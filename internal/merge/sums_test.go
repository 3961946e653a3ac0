package merge

import (
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
)

// TestMergeSumsByHand: what a merged result adds across shards, worked
// out by hand. Two shards of 10 s, started together: shard 0 did 1000
// GETs of 1 KiB at 100 µs of CPU and 20 µs of waits for a CPU each,
// shard 1 3000 at 300 µs and 0. The merged CPU is per operation of the
// union, (1000 x 100 + 3000 x 300) / 4000 = 250 µs (the waits 5 µs), not
// the mean of the shards' (200); throughput is both shards' bytes over
// the 10 s window, (1000 + 3000) x 1024 B / 10 s = 0.4096 MB/s; the cost
// per hour is over that one window, not over 2 x 10 s.
func TestMergeSumsByHand(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC)
	a := shardFile(t, "sums", 0, 2, start, 10*time.Second, repeat(10, 1000))
	b := shardFile(t, "sums", 1, 2, start, 10*time.Second, repeat(10, 3000))
	a.Results[0].ClientCPUusPerOp, a.Results[0].ClientRunWaitUsPerOp = 100, 20
	b.Results[0].ClientCPUusPerOp = 300
	// Each shard's own lab: the wires add, and one busy machine makes
	// the merged step busy.
	a.Results[0].Wire = &document.WireStats{Up: document.WireWay{Packets: 10, Bytes: 400, Tardy: 1}, Down: document.WireWay{Packets: 30, QueueDrops: 2, Late: 1}, LateAfterMs: 2}
	b.Results[0].Wire = &document.WireStats{Up: document.WireWay{Packets: 5, LossDrops: 1}, Down: document.WireWay{Packets: 20, Bytes: 9000, Late: 3}, LateAfterMs: 2, Busy: true}
	for _, f := range []*document.Document{a.Document, b.Document} {
		f.Results[0].ClientCPUsPerGB = 1 // measured
		f.Target = document.TargetInfo{URL: "s3://b", Provider: "s3"}
	}
	res, err := Merge([]Input{{"a", a}, {"b", b}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Doc.Results[0]
	if r.Count != 4000 || r.ClientCPUusPerOp != 250 || r.ClientRunWaitUsPerOp != 5 {
		t.Errorf("count %d, CPU %v µs/op, waits %v µs/op; want 4000, 250, 5", r.Count, r.ClientCPUusPerOp, r.ClientRunWaitUsPerOp)
	}
	// 250 µs x 4000 = 1 s of CPU for 4000 x 1024 B = 0.004096 GB.
	if want := 1 / 0.004096; math.Abs(r.ClientCPUsPerGB-want) > 1e-9 {
		t.Errorf("CPU per GB %v, want %v", r.ClientCPUsPerGB, want)
	}
	want := document.WireStats{Up: document.WireWay{Packets: 15, Bytes: 400, LossDrops: 1, Tardy: 1},
		Down: document.WireWay{Packets: 50, Bytes: 9000, QueueDrops: 2, Late: 4}, LateAfterMs: 2, Busy: true}
	if r.Wire == nil || *r.Wire != want {
		t.Errorf("wire %+v, want %+v", r.Wire, want)
	}
	if r.WallS != 10 || math.Abs(r.AggregateMBps-0.4096) > 1e-9 {
		t.Errorf("wall %v s, aggregate %v MB/s; want 10 and 0.4096", r.WallS, r.AggregateMBps)
	}
	c := analysis.RunCost(res.Doc, analysis.DefaultPrices())
	// 4000 GETs: $0.0016 in requests, 4096000 B of egress $0.00036864.
	if want := math.Round((0.0016+0.00036864)/10*3600*1e6) / 1e6; c == nil || c.WallS != 10 || c.PerHourUSD != want {
		t.Errorf("cost %+v, want $%v per hour over 10 s", c, want)
	}
}
