package stats

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGCBudget: objbench sets GOGC and a memory limit for a measurement
// only when the user set neither, leaves room above the live heap it
// expects, and puts back what was there when the last measurement ends.
// Not parallel: the collector's settings are the process's.
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
	tests := []struct {
		name      string
		getenv    func(string) string
		keep      int
		by        string
		percent   int
		minLimit  int64
		maxLimit  int64
		wantLimit bool
	}{
		{"defaults", env(), 100_000, "objbench", GCPercent, GCMemoryLimit, GCMemoryLimit, true},
		{"no samples kept", env(), 0, "objbench", GCPercent, GCMemoryLimit, GCMemoryLimit, true},
		// 1,000,000 packed samples are 119 MB, twice: the limit leaves half as much again above.
		{"a million kept", env(), 1_000_000, "objbench", GCPercent, 3 * 119_000_000, 500 << 20, true},
		{"user GOGC", env("GOGC", "200"), 100_000, "user", 100, 0, 0, false},
		{"user GOMEMLIMIT", env("GOMEMLIMIT", "1GiB"), 100_000, "user", 100, 0, 0, false},
	}
	for _, tt := range tests {
		gc, done := GCBudget(tt.getenv, tt.keep)
		if gc.SetBy != tt.by || gc.Percent != tt.percent || (gc.LimitBytes != 0) != tt.wantLimit ||
			tt.wantLimit && (gc.LimitBytes < tt.minLimit || gc.LimitBytes > tt.maxLimit) {
			t.Errorf("%s: %+v, want set by %s, GOGC %d, limit in [%d, %d]", tt.name, gc, tt.by, tt.percent, tt.minLimit, tt.maxLimit)
		}
		if got := debug.SetGCPercent(-1); got != tt.percent {
			t.Errorf("%s: GOGC in force %d, want %d", tt.name, got, tt.percent)
		}
		debug.SetGCPercent(tt.percent)
		if l := debug.SetMemoryLimit(-1); tt.wantLimit && l != gc.LimitBytes {
			t.Errorf("%s: limit in force %d, want %d", tt.name, l, gc.LimitBytes)
		}
		done()
		done() // twice: no effect
		if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
			t.Errorf("%s: after: GOGC %d, limit %d, want 100 and none", tt.name, p, l)
		}
	}
	// A live heap past the limit raises it: 64 MiB held when the
	// measurement starts leaves 32 MiB above.
	held := make([]byte, 64<<20)
	runtime.GC()
	gc, done := GCBudget(env(), 0)
	if gc.LimitBytes < 96<<20 {
		t.Errorf("64 MiB live: limit %d, want at least 96 MiB", gc.LimitBytes)
	}
	done()
	runtime.KeepAlive(held)
	runtime.GC()
	// Overlapping measurements: the budget holds until the last one ends.
	_, doneA := GCBudget(env(), 0)
	_, doneB := GCBudget(env(), 1_000_000)
	doneA()
	if p := debug.SetGCPercent(-1); p != GCPercent {
		t.Errorf("one of two measurements ended: GOGC %d, want %d", p, GCPercent)
	}
	debug.SetGCPercent(GCPercent)
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
