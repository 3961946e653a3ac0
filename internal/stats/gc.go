package stats

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
	"unsafe"
)

// GC is what Go's garbage collector did during a step, and the budget it
// ran under. A collection is a pause inside the requests it overlaps (its
// stop-the-world phases) and a share of the CPU (its marking), so a step
// reports its collections beside its latencies rather than hiding them.
type GC struct {
	// Percent is the GOGC in force (-1: off) and LimitBytes the soft
	// memory limit (GOMEMLIMIT; 0: none). SetBy says who chose them:
	// "objbench" (GCBudget) or "user" (GOGC or GOMEMLIMIT in the
	// environment, left as they are).
	Percent    int    `json:"gogc"`
	LimitBytes int64  `json:"memory_limit_bytes"`
	SetBy      string `json:"set_by"`
	// Cycles are the collections that ended during the step; PauseTotalMs
	// their stop-the-world time, PauseMaxMs the longest (over the last 256
	// cycles when there were more), in milliseconds.
	Cycles       int64   `json:"cycles"`
	PauseTotalMs float64 `json:"pause_total_ms"`
	PauseMaxMs   float64 `json:"pause_max_ms"`
	// CPUs is the collector's CPU time across the step (marking, assists
	// and pauses; the runtime's estimate), in seconds: a part of the
	// step's client CPU.
	CPUs float64 `json:"cpu_s"`
}

// The collector's budget for a measurement when the user set neither GOGC
// nor GOMEMLIMIT: GOGC raised from Go's default 100 until the heap's goal
// reaches GCHeapTarget, up to GCMaxPercent, never under the default; a
// soft memory limit of the target and some headroom (or twice the live
// heap and the headroom, when that is more) as a backstop. The figures
// behind each number: docs/design.md#the-garbage-collectors-budget.
const (
	GCMaxPercent = 400
	GCHeapTarget = 40 << 20
	// gcHeadroom is the least room the limit leaves above the heap's
	// target or the live heap; gcKeptHeadroom when samples are kept.
	gcHeadroom     = 16 << 20
	gcKeptHeadroom = 8 << 20
)

// budget counts the measurements under way and the holds (HoldGCBudget),
// so that overlapping measurements set the budget once, and the last of
// them to end, or the last hold to be released after it, restores what was
// there.
var budget budgetState

type budgetState struct {
	sync.Mutex
	n, holds int
	restore  func()
}

// GCBudget sets the collector's budget for a measurement that keeps up to
// keep raw samples, unless getenv finds GOGC or GOMEMLIMIT set. The live
// heap it expects is the process's at the last collection (the clients,
// the embedded lab, other measurements under way, as in a test binary or
// serve) and the step's samples, packed. The budget is recorded in the
// returned GC, whose counters Since fills at the end of the step; done
// puts back what was there once no measurement is under way and nothing
// holds the budget (HoldGCBudget).
func GCBudget(getenv func(string) string, keep int) (gc GC, done func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		gc.SetBy = "user"
		gc.Percent = debug.SetGCPercent(-1)
		debug.SetGCPercent(gc.Percent)
		if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
			gc.LimitBytes = l
		}
		return gc, func() {}
	}
	live := max(heapLive()+int64(max(keep, 0))*int64(unsafe.Sizeof(packed{}))*17/16, 1)
	percent := int(min(max(100*(GCHeapTarget-live)/live, 100), GCMaxPercent))
	room := int64(gcHeadroom)
	if keep > 0 {
		room = gcKeptHeadroom
	}
	limit := max(GCHeapTarget+room, 2*live+room)
	budget.Lock()
	defer budget.Unlock()
	if budget.n == 0 {
		// The first measurement under way: its budget, over any that a
		// hold kept from an earlier one.
		prevPercent, prevLimit := debug.SetGCPercent(percent), debug.SetMemoryLimit(limit)
		if budget.restore == nil {
			budget.restore = func() { debug.SetGCPercent(prevPercent); debug.SetMemoryLimit(prevLimit) }
		}
	} else {
		// Measurements at once: the lower GOGC and the higher limit of theirs.
		if p := debug.SetGCPercent(percent); p < percent {
			debug.SetGCPercent(p)
			percent = p
		}
		if l := debug.SetMemoryLimit(-1); l > limit {
			limit = l
		}
		debug.SetMemoryLimit(limit)
	}
	budget.n++
	var once sync.Once
	return GC{Percent: percent, LimitBytes: limit, SetBy: "objbench"}, func() {
		once.Do(func() {
			budget.Lock()
			defer budget.Unlock()
			budget.n--
			budget.restoreIfFree()
		})
	}
}

// HoldGCBudget keeps the budget of the measurements that end while it is
// held in force until release is called: a command holds it from its first
// step until its results are saved, since what it holds then (the kept
// samples, the series, the document and their encodings) is at its
// largest. Without the hold, Go's default (GOGC 100, no limit) let the heap
// double after a 10,000,000-request open-loop step: 147 MB resident at
// the end against 87 MB during it. It changes nothing when GOGC or
// GOMEMLIMIT is set (GCBudget then sets nothing).
func HoldGCBudget() (release func()) {
	budget.Lock()
	budget.holds++
	budget.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			budget.Lock()
			defer budget.Unlock()
			budget.holds--
			budget.restoreIfFree()
		})
	}
}

// restoreIfFree puts back what was there before the budget once no
// measurement is under way and nothing holds it; budget is locked.
func (b *budgetState) restoreIfFree() {
	if b.n == 0 && b.holds == 0 && b.restore != nil {
		b.restore()
		b.restore = nil
	}
}

// heapLive is the heap the last collection found live, in bytes.
func heapLive() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// GCCounters are the collector's running totals, read at a step's start
// and end (ReadGCCounters).
type GCCounters struct {
	cycles     uint32
	pauseTotal uint64
	pauses     [256]uint64
	gcCPU      float64
}

// ReadGCCounters reads the collector's totals. It stops the world for a
// few microseconds (runtime.ReadMemStats): read it outside the measured
// requests, at a step's start and end.
func ReadGCCounters() GCCounters {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	c := GCCounters{cycles: ms.NumGC, pauseTotal: ms.PauseTotalNs, pauses: ms.PauseNs}
	if s[0].Value.Kind() == metrics.KindFloat64 {
		c.gcCPU = s[0].Value.Float64()
	}
	return c
}

// Since fills gc's counters with what happened from c0 to c1.
func (gc *GC) Since(c0, c1 GCCounters) {
	n := c1.cycles - c0.cycles
	gc.Cycles = int64(n)
	gc.PauseTotalMs = float64(c1.pauseTotal-c0.pauseTotal) / float64(time.Millisecond)
	var longest uint64
	for i := range min(n, uint32(len(c1.pauses))) {
		longest = max(longest, c1.pauses[(c1.cycles-i+255)%256]) // PauseNs[(NumGC+255)%256] is the latest
	}
	gc.PauseMaxMs = float64(longest) / float64(time.Millisecond)
	gc.CPUs = max(c1.gcCPU-c0.gcCPU, 0)
}

// ReleaseCode gives back (Linux only) the resident pages of the binary's
// code and read-only data (see releaseCode): called before a run's first
// step and after its last, outside any timed request, so that a long run
// holds the code its requests run rather than what its packages' inits,
// the preparation or the previous steps touched, and the saving of the
// results starts from there. It returns the bytes released.
func ReleaseCode() int64 { return releaseCode() }
