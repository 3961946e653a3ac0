package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
)

// result is a strategy's outcome on a 10 ms link, with per-object phase
// means given in round trips.
func result(name string, conc int, wall time.Duration, rtts map[nettrace.Phase]float64) *load.StrategyResult {
	r := &load.StrategyResult{Spec: load.StrategySpec{Name: name, Concurrency: conc}, Op: "put", Objects: 50, Size: 0,
		Wall: wall, Count: 50, Requests: 50, RTT: 10 * time.Millisecond, Available: true}
	for p, n := range rtts {
		r.PhaseMean[p] = time.Duration(n * float64(r.RTT))
	}
	return r
}

func TestSavingSentence(t *testing.T) {
	t.Parallel()
	base := result(load.SDKDefault, 1, 10*time.Second, map[nettrace.Phase]float64{nettrace.Connect: 1, nettrace.Wait: 1})
	t.Run("largest saving named", func(t *testing.T) {
		best := result(load.ReusedConnection, 1, 5*time.Second, map[nettrace.Phase]float64{nettrace.Wait: 1})
		got := SavingSentence(base, best)
		want := "50 uploads of 0B: reused-connection takes 5.00 s instead of 10.00 s with sdk-default (2x faster); " +
			"the largest saving is in connect: sdk-default spends 1.0 round trips per object there, reused-connection 0.0."
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	})
	t.Run("tie goes to the earlier phase", func(t *testing.T) {
		// connect and wait each save one round trip: the phase order decides.
		best := result(load.HTTP2, 0, time.Second, nil)
		got := SavingSentence(base, best)
		if !strings.Contains(got, "the largest saving is in connect:") || !strings.HasSuffix(got, " and overlaps them across objects.") {
			t.Errorf("tie: %q, want connect (first in phase order) and the overlap clause", got)
		}
	})
	t.Run("no phase saved", func(t *testing.T) {
		best := result(load.ReusedConnection, 1, 9*time.Second, map[nettrace.Phase]float64{nettrace.Connect: 1, nettrace.Wait: 1})
		got := SavingSentence(base, best)
		if strings.Contains(got, "largest saving") || !strings.HasSuffix(got, "(1x faster).") {
			t.Errorf("no saving: %q, want the wall times only", got)
		}
	})
}

func TestStrategyRows(t *testing.T) {
	t.Parallel()
	base := result(load.SDKDefault, 1, 10*time.Second, map[nettrace.Phase]float64{nettrace.Connect: 1})
	a := result(load.ReusedConnection, 1, 4*time.Second, nil)
	tie := result(load.HTTP2, 0, 4*time.Second, nil) // ties a: the first listed stays best
	off := &load.StrategyResult{Spec: load.StrategySpec{Name: "batch"}, Op: "put", Objects: 50, Reason: "none"}
	rows, summary, fvl := StrategyRows([]*load.StrategyResult{base, a, tie, off})
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	if rows[1].Speedup != 2.5 || rows[0].Speedup != 1 {
		t.Errorf("speed-ups %g, %g; want 1 and 2.5 against sdk-default", rows[0].Speedup, rows[1].Speedup)
	}
	if rows[2].Concurrency != 50 {
		t.Errorf("concurrency 0 (all at once) shown as %d, want the 50 objects", rows[2].Concurrency)
	}
	if rows[3].Available || rows[3].WallS != 0 {
		t.Errorf("unavailable row %+v, want no figures", rows[3])
	}
	if rows[0].RTTs["connect"] != 1 {
		t.Errorf("sdk-default connect round trips %g, want 1", rows[0].RTTs["connect"])
	}
	if len(summary) != 1 || !strings.Contains(summary[0], "reused-connection takes 4.00 s") {
		t.Errorf("summary %q, want one sentence naming reused-connection (first of the tied best)", summary)
	}
	if fvl != nil {
		t.Errorf("first-vs-later %+v from uploads, want none (downloads only)", fvl)
	}
	if _, s, _ := StrategyRows([]*load.StrategyResult{base}); len(s) != 0 {
		t.Errorf("sdk-default alone: summary %q, want none", s)
	}
}
