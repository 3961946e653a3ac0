package cli

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/document/schematest"
)

// TestStepWire: each step of a run on the lab carries what its wire did:
// the object bytes crossed the wire the way they went, the 8-packet
// queue at 16 Mbit dropped some of an upload's slow start, and the
// busy and imprecise flags match the findings that tell them. At 16 Mbit
// a packet takes 0.75 ms, so tardiness there moves nothing: never
// imprecise.
func TestStepWire(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "run", "lab", "--json", "--no-save", "-q", "--rtt", "20ms", "--no-tls",
		"--bandwidth", "16Mbit", "--queue", "8", "--workload", "throughput", "--sizes", "1MiB", "--size-count", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := schematest.Check([]byte(out)); err != nil {
		t.Error(err)
	}
	var d document.Document
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	busy := false
	for _, r := range d.Results {
		w := r.Wire
		if w == nil {
			t.Fatalf("%s: no wire", r.Op)
		}
		way, back := w.Down, w.Up
		if r.Op == "put" {
			way, back = w.Up, w.Down
		}
		if way.Bytes < 2<<20 || back.Bytes >= way.Bytes/4 || way.Packets < (2<<20)/1500 || back.Packets == 0 {
			t.Errorf("%s: %+v the way of the objects, %+v back: want 2 MiB and more one way, ACKs back", r.Op, way, back)
		}
		if r.Op == "put" && way.QueueDrops == 0 {
			t.Errorf("put: no drop behind 8 packets at 16 Mbit: %+v", way)
		}
		if w.LateAfterMs != 2 || w.Imprecise {
			t.Errorf("%s: late after %v ms, imprecise %v: want 2 ms, never imprecise at 16 Mbit", r.Op, w.LateAfterMs, w.Imprecise)
		}
		if share := float64(w.Up.Late+w.Down.Late) / float64(w.Up.Packets+w.Down.Packets); w.Busy != (share > 0.05) {
			t.Errorf("%s: busy %v with %.3f of the packets late", r.Op, w.Busy, share)
		}
		busy = busy || w.Busy
	}
	told := false
	for _, f := range d.Findings {
		told = told || f.ID == "lab-machine-busy"
		if f.ID == "lab-wire-imprecise" {
			t.Errorf("finding %s at 16 Mbit: %s", f.ID, f.Text)
		}
	}
	if told != busy {
		t.Errorf("a step busy: %v; the finding: %v", busy, told)
	}
}

// TestExactWireKeepsTime: with --exact-wire the wire hands its packets
// over on time behind 8 packets at 50 Mbit (the grid's exact rows: 0% to
// 1% tardy), so no step is imprecise and the document says so; a CPU that
// sleeps between packets handed 16% to 37% over late on the machine these
// figures come from. A timing test: the race detector's slowed CPU would
// make the wire late.
func TestExactWireKeepsTime(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	code, out, errOut := runCLI(t, context.Background(), "run", "lab", "--json", "--no-save", "-q", "--rtt", "20ms", "--no-tls",
		"--bandwidth", "50Mbit", "--queue", "8", "--exact-wire", "--network", "netstack", "--workload", "throughput", "--sizes", "1MiB", "--size-count", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d document.Document
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Lab == nil || !d.Lab.ExactWire {
		t.Fatalf("lab block %+v: want exact_wire", d.Lab)
	}
	for _, r := range d.Results {
		w := r.Wire
		if w == nil {
			t.Fatalf("%s: no wire", r.Op)
		}
		n, tardy := w.Up.Packets+w.Down.Packets, w.Up.Tardy+w.Down.Tardy
		if n == 0 || float64(tardy) > 0.05*float64(n) || w.Imprecise {
			t.Errorf("%s on an exact wire: %d of %d packets tardy, imprecise %v: want at most 5%%", r.Op, tardy, n, w.Imprecise)
		}
	}
}
