package stats

import (
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sample(seq int, ttfb, total time.Duration, reused bool) nettrace.Sample {
	s := nettrace.Sample{Seq: seq, Start: t0, FirstByte: t0.Add(ttfb), End: t0.Add(total), Reused: reused, Size: 1000, Requests: 1}
	s.Phases[nettrace.Wait] = ttfb
	if !reused {
		s.Phases[nettrace.Connect] = ttfb / 2
	}
	return s
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want+1e-9 }

func TestPercentiles(t *testing.T) {
	t.Parallel()
	r := NewRecorder()
	for i := 1; i <= 1000; i++ {
		s := sample(i, time.Duration(i)*time.Millisecond, time.Duration(2*i)*time.Millisecond, true)
		r.Add(&s)
	}
	s := r.Summarize(1_000_000, 2*time.Second)
	tests := []struct {
		name      string
		got, want float64
	}{
		{"ttfb p50", s.TTFBms.P50, 500}, {"ttfb p90", s.TTFBms.P90, 900}, {"ttfb p99", s.TTFBms.P99, 990},
		{"ttfb p999", s.TTFBms.P999, 999}, {"ttfb min", s.TTFBms.Min, 1}, {"ttfb max", s.TTFBms.Max, 1000},
		{"ttfb mean", s.TTFBms.Mean, 500.5}, {"total p50", s.TotalMs.P50, 1000},
		{"wait p50", s.PhasesMs["wait"].P50, 500},
		// 1 MB in the p50 total of 1 s is 1 MB/s; p90 is the slower 1.8 s.
		{"mb/s p50", s.MBps.P50, 1}, {"mb/s p90", s.MBps.P90, 1 / 1.8},
		// 1000 requests of 1 MB over 2 s.
		{"aggregate", s.AggregateMBps, 0.5},
	}
	for _, tc := range tests {
		if !near(tc.got, tc.want, 0.01) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if s.Count != 1000 || s.TTFBms.Count != 1000 || s.Requests != 1000 {
		t.Errorf("count %d ttfb count %d requests %d", s.Count, s.TTFBms.Count, s.Requests)
	}
	if !near(s.TTFBms.Stddev, 288.7, 0.01) {
		t.Errorf("stddev %v", s.TTFBms.Stddev)
	}
}

func TestErrorsStayOutOfLatency(t *testing.T) {
	t.Parallel()
	r := NewRecorder()
	ok := sample(1, 10*time.Millisecond, 10*time.Millisecond, true)
	r.Add(&ok)
	for _, class := range []string{"timeout", "timeout", "reset", ""} {
		bad := sample(2, time.Hour, time.Hour, true)
		bad.Err, bad.ErrClass, bad.Retries = "boom", class, 1
		r.Add(&bad)
	}
	s := r.Summarize(1000, time.Second)
	if s.Count != 1 || s.Errors != 4 || !near(s.TTFBms.Max, 10, 0.01) || s.Retries != 4 {
		t.Errorf("count %d errors %d max %v retries %d", s.Count, s.Errors, s.TTFBms.Max, s.Retries)
	}
	want := map[string]int64{"timeout": 2, "reset": 1, "other": 1}
	for k, v := range want {
		if s.ErrorsByClass[k] != v {
			t.Errorf("errors[%s] = %d, want %d (%v)", k, s.ErrorsByClass[k], v, s.ErrorsByClass)
		}
	}
}

func TestFirstAndLater(t *testing.T) {
	t.Parallel()
	r := NewRecorder()
	first := sample(0, 90*time.Millisecond, 100*time.Millisecond, false)
	r.Add(&first)
	for i := 1; i <= 9; i++ {
		s := sample(i, 10*time.Millisecond, 12*time.Millisecond, true)
		r.Add(&s)
	}
	s := r.Summarize(0, time.Second)
	if s.FirstRequest.Count != 1 || s.FirstRequest.ReusedFraction != 0 || !near(s.FirstRequest.TTFBms.P50, 90, 0.01) {
		t.Errorf("first: %+v", s.FirstRequest)
	}
	if s.LaterRequests.Count != 9 || s.LaterRequests.ReusedFraction != 1 || !near(s.LaterRequests.TTFBms.P50, 10, 0.01) {
		t.Errorf("later: %+v", s.LaterRequests)
	}
	if !near(s.FirstRequest.Phase(nettrace.Connect).P50, 45, 0.01) || s.LaterRequests.Phase(nettrace.Connect).Max != 0 {
		t.Errorf("connect first %v later %v", s.FirstRequest.Phase(nettrace.Connect), s.LaterRequests.Phase(nettrace.Connect))
	}
	if s.ReusedFraction != 0.9 || s.MBps.P50 != 0 {
		t.Errorf("reused %v mbps %v", s.ReusedFraction, s.MBps)
	}
}

// TestMergeEqualsOne: per-worker recorders merged equal one recorder fed
// everything; run with -race, each goroutine owning its recorder.
func TestMergeEqualsOne(t *testing.T) {
	t.Parallel()
	one := NewRecorder()
	workers := make([]*Recorder, 4)
	var wg sync.WaitGroup
	for w := range workers {
		workers[w] = NewRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				s := sample(i, time.Duration(w*250+i+1)*time.Millisecond, time.Duration(w*250+i+1)*time.Millisecond, i > 0)
				workers[w].Add(&s)
			}
		}()
	}
	wg.Wait()
	for w := range workers {
		for i := range 250 {
			s := sample(i, time.Duration(w*250+i+1)*time.Millisecond, time.Duration(w*250+i+1)*time.Millisecond, i > 0)
			one.Add(&s)
		}
	}
	merged := workers[0]
	for _, w := range workers[1:] {
		merged.Merge(w)
	}
	a, b := merged.Summarize(1000, time.Second), one.Summarize(1000, time.Second)
	if a.TTFBms != b.TTFBms || a.FirstRequest.Count != 4 || !reflect.DeepEqual(a.FirstRequest, b.FirstRequest) || a.LaterRequests.TTFBms != b.LaterRequests.TTFBms {
		t.Errorf("merged %+v\nsingle %+v", a.TTFBms, b.TTFBms)
	}
}

// TestRecorderMemoryBounded: a Recorder's memory is fixed by its
// histograms, whatever the number of samples, and stays well under 1 MiB:
// later requests only fill histograms; first requests are kept exactly up
// to exactCap, then spill into small histograms.
func TestRecorderMemoryBounded(t *testing.T) {
	t.Parallel()
	const limit = 900 << 10
	tests := []struct {
		name  string
		seq   func(i int) int
		fixed bool // ByteSize may not change at all
	}{
		{"later requests", func(i int) int { return i + 1 }, true},
		{"one first then later", func(i int) int { return i }, false},
		{"first requests only", func(int) int { return 0 }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := NewRecorder()
			before := r.ByteSize()
			peak := before
			for i := range 100_000 {
				s := sample(tc.seq(i), time.Duration(i)*time.Microsecond, time.Duration(i)*time.Second, i%2 == 0)
				r.Add(&s)
				if i%1000 == 0 {
					peak = max(peak, r.ByteSize())
				}
			}
			after := r.ByteSize()
			peak = max(peak, after)
			if tc.fixed && after != before {
				t.Errorf("grew from %d to %d bytes", before, after)
			}
			if peak > limit {
				t.Errorf("peak %d bytes, want under %d", peak, limit)
			}
			// Merging a copy of itself must not push it over either.
			o := NewRecorder()
			o.Merge(r)
			r.Merge(o)
			if r.ByteSize() > limit {
				t.Errorf("after merge %d bytes, want under %d", r.ByteSize(), limit)
			}
			if s := r.Summarize(0, time.Second); s.Count != 200_000 {
				t.Errorf("count %d after merge, want 200000", s.Count)
			}
		})
	}
}

// TestFirstExactAndSpilled: the first group is exact while small and keeps
// HDR precision (2 figures) once spilled; merging spilled and exact groups
// gives the same as recording everything into one.
func TestFirstExactAndSpilled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		n       int // first requests
		workers int
		rel     float64
	}{
		{"exact", 20, 20, 0},
		{"at cap", exactCap, 4, 0},
		{"spilled", 3 * exactCap, 3, 0.01},
		{"spilled by merge", exactCap + 10, 2, 0.01},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			one := NewRecorder()
			workers := make([]*Recorder, tc.workers)
			for w := range workers {
				workers[w] = NewRecorder()
			}
			for i := range tc.n {
				// TTFB i+1 ms for i in 0..n-1, in a shuffled order.
				ms := (i*7919)%tc.n + 1
				s := sample(0, time.Duration(ms)*time.Millisecond, time.Duration(ms)*time.Millisecond, false)
				one.Add(&s)
				workers[i%tc.workers].Add(&s)
			}
			merged := NewRecorder()
			for _, w := range workers {
				merged.Merge(w)
			}
			a, b := one.Summarize(0, time.Second), merged.Summarize(0, time.Second)
			if !reflect.DeepEqual(a.FirstRequest, b.FirstRequest) || a.TTFBms != b.TTFBms {
				t.Errorf("merged first %+v\nsingle first %+v", b.FirstRequest.TTFBms, a.FirstRequest.TTFBms)
			}
			n := float64(tc.n)
			want := map[string][2]float64{
				"min": {a.FirstRequest.TTFBms.Min, 1}, "max": {a.FirstRequest.TTFBms.Max, n},
				"p50": {a.FirstRequest.TTFBms.P50, math.Ceil(n * 0.5)}, "p99": {a.FirstRequest.TTFBms.P99, math.Ceil(n * 0.99)},
				"mean": {a.FirstRequest.TTFBms.Mean, (n + 1) / 2}, "connect p50": {a.FirstRequest.Phase(nettrace.Connect).P50, math.Ceil(n*0.5) / 2},
			}
			for k, v := range want {
				if !near(v[0], v[1], tc.rel+1e-9) && !(tc.rel > 0 && math.Abs(v[0]-v[1]) <= 1) {
					t.Errorf("first %s = %v, want %v", k, v[0], v[1])
				}
			}
			if a.FirstRequest.Count != int64(tc.n) || a.Count != int64(tc.n) || a.FirstRequest.ReusedFraction != 0 {
				t.Errorf("count %d/%d reused %v", a.FirstRequest.Count, a.Count, a.FirstRequest.ReusedFraction)
			}
		})
	}
}

func TestPercentilesExact(t *testing.T) {
	t.Parallel()
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(n - i) // descending: Percentiles must sort
		}
		return v
	}
	tests := []struct {
		name string
		in   []float64
		want Dist
	}{
		{"empty", nil, Dist{}},
		{"nan only", []float64{math.NaN()}, Dist{}},
		{"one", []float64{42}, Dist{Count: 1, Min: 42, P50: 42, P90: 42, P99: 42, P999: 42, Max: 42, Mean: 42}},
		{"two", []float64{1, 3}, Dist{Count: 2, Min: 1, P50: 1, P90: 3, P99: 3, P999: 3, Max: 3, Mean: 2, Stddev: 1}},
		{"1..1000", seq(1000), Dist{Count: 1000, Min: 1, P50: 500, P90: 900, P99: 990, P999: 999, Max: 1000, Mean: 500.5, Stddev: math.Sqrt((1000*1000 - 1) / 12.0)}},
		{"1..100 with NaN", append(seq(100), math.NaN()), Dist{Count: 100, Min: 1, P50: 50, P90: 90, P99: 99, P999: 100, Max: 100, Mean: 50.5, Stddev: math.Sqrt((100*100 - 1) / 12.0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tc.in)
			got := Percentiles(in)
			if math.Abs(got.Stddev-tc.want.Stddev) > 1e-9 {
				t.Errorf("stddev %v, want %v", got.Stddev, tc.want.Stddev)
			}
			got.Stddev, tc.want.Stddev = 0, 0
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			if len(in) > 0 && !math.IsNaN(tc.in[0]) && in[0] != tc.in[0] {
				t.Error("Percentiles modified its input")
			}
		})
	}
}

func BenchmarkRecorderAdd(b *testing.B) {
	r := NewRecorder()
	s := sample(1, 3*time.Millisecond, 4*time.Millisecond, true)
	b.ReportAllocs()
	for b.Loop() {
		r.Add(&s)
	}
}
