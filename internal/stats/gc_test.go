package stats

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGCBudget: objbench sets GOGC and a memory limit for a measurement
// only when the user set neither: GOGC as high as the heap target allows,
// never under Go's default nor over GCMaxPercent, and a limit well above
// the live heap; it puts back what was there when the last measurement
// ends. Not parallel: the collector's settings are the process's.
func TestGCBudget(t *testing.T) {
	prevPercent, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) })
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	runtime.GC() // the live heap as it is now (this test binary's: a few MB)
	tests := []struct {
		name                string
		getenv              func(string) string
		keep                int
		by                  string
		minPercent, percent int
		minLimit, maxLimit  int64
		wantLimit           bool
	}{
		// No sample kept: the goal of a few MB live reaches the target only at GOGC 400.
		{"no samples kept", env(), 0, "objbench", GCMaxPercent, GCMaxPercent, GCHeapTarget + gcHeadroom, GCHeapTarget + gcHeadroom, true},
		// 100,000 packed samples (12 MB) and the rest: between the two.
		{"defaults", env(), 100_000, "objbench", 120, 300, GCHeapTarget + gcKeptHeadroom, GCHeapTarget + gcKeptHeadroom, true},
		// 1,000,000 packed samples are 119 MB: Go's default, a limit above twice that.
		{"a million kept", env(), 1_000_000, "objbench", 100, 100, 2*119_000_000 + gcKeptHeadroom, 300 << 20, true},
		{"user GOGC", env("GOGC", "200"), 100_000, "user", 100, 100, 0, 0, false},
		{"user GOMEMLIMIT", env("GOMEMLIMIT", "1GiB"), 100_000, "user", 100, 100, 0, 0, false},
	}
	for _, tt := range tests {
		gc, done := GCBudget(tt.getenv, tt.keep)
		if gc.SetBy != tt.by || gc.Percent < tt.minPercent || gc.Percent > tt.percent || (gc.LimitBytes != 0) != tt.wantLimit ||
			tt.wantLimit && (gc.LimitBytes < tt.minLimit || gc.LimitBytes > tt.maxLimit) {
			t.Errorf("%s: %+v, want set by %s, GOGC in [%d, %d], limit in [%d, %d]", tt.name, gc, tt.by, tt.minPercent, tt.percent,
				tt.minLimit, tt.maxLimit)
		}
		if got := debug.SetGCPercent(-1); got != gc.Percent {
			t.Errorf("%s: GOGC in force %d, want %d", tt.name, got, gc.Percent)
		}
		debug.SetGCPercent(gc.Percent)
		if l := debug.SetMemoryLimit(-1); tt.wantLimit && l != gc.LimitBytes {
			t.Errorf("%s: limit in force %d, want %d", tt.name, l, gc.LimitBytes)
		}
		done()
		done() // twice: no effect
		if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
			t.Errorf("%s: after: GOGC %d, limit %d, want 100 and none", tt.name, p, l)
		}
	}
	// A live heap past the target: Go's default GOGC, and a limit twice
	// the live heap and more.
	held := make([]byte, 64<<20)
	runtime.GC()
	gc, done := GCBudget(env(), 0)
	if gc.Percent != 100 || gc.LimitBytes < 2*64<<20+gcHeadroom {
		t.Errorf("64 MiB live: %+v, want GOGC 100 and a limit of at least %d", gc, 2*64<<20+gcHeadroom)
	}
	done()
	runtime.KeepAlive(held)
	// Overlapping measurements: the lower GOGC and the higher limit hold
	// until the last one ends.
	a, doneA := GCBudget(env(), 0)
	b, doneB := GCBudget(env(), 1_000_000)
	if p, l := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1); p != b.Percent || l != b.LimitBytes || b.Percent > a.Percent {
		t.Errorf("two measurements (%+v, %+v): GOGC %d, limit %d", a, b, p, l)
	}
	debug.SetGCPercent(b.Percent)
	doneA()
	if p := debug.SetGCPercent(-1); p != b.Percent {
		t.Errorf("one of two measurements ended: GOGC %d, want %d", p, b.Percent)
	}
	debug.SetGCPercent(b.Percent)
	doneB()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("both ended: GOGC %d, want 100", p)
	}
}

// TestGCSince: collections between two reads are counted with their pauses.
func TestGCSince(t *testing.T) {
	c0 := ReadGCCounters()
	for range 3 {
		runtime.GC()
	}
	var gc GC
	gc.Since(c0, ReadGCCounters())
	if gc.Cycles < 3 || gc.PauseTotalMs <= 0 || gc.PauseMaxMs <= 0 || gc.PauseMaxMs > gc.PauseTotalMs || gc.CPUs <= 0 {
		t.Errorf("3 forced collections: %+v", gc)
	}
}

// TestHoldGCBudget: a hold keeps the budget of the measurements that ended
// in force (a command saving its results) until it is released; a step
// under the hold sets its own budget, and the release puts back what was
// there before the first. Without a budget (the user's GOGC) it holds
// nothing. Not parallel: the collector's settings are the process's.
func TestHoldGCBudget(t *testing.T) {
	prevPercent, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) })
	none := func(string) string { return "" }
	inForce := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}
	release := HoldGCBudget()
	a, doneA := GCBudget(none, 0)
	doneA()
	if p, l := inForce(); p != a.Percent || l != a.LimitBytes {
		t.Errorf("a step ended under a hold: GOGC %d, limit %d, want its budget %+v", p, l, a)
	}
	b, doneB := GCBudget(none, 1_000_000)
	if p, l := inForce(); p != b.Percent || l != b.LimitBytes {
		t.Errorf("the next step under the hold: GOGC %d, limit %d, want its own budget %+v", p, l, b)
	}
	doneB()
	release()
	release() // twice: no effect
	if p, l := inForce(); p != 100 || l != math.MaxInt64 {
		t.Errorf("released: GOGC %d, limit %d, want 100 and none", p, l)
	}
	// A hold released with no step under it, and a user's GOGC: nothing changes.
	HoldGCBudget()()
	release = HoldGCBudget()
	_, done := GCBudget(func(k string) string { return map[string]string{"GOGC": "200"}[k] }, 0)
	done()
	release()
	if p, l := inForce(); p != 100 || l != math.MaxInt64 {
		t.Errorf("user's GOGC under a hold: GOGC %d, limit %d, want 100 and none", p, l)
	}
}
