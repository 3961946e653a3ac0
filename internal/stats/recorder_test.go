package stats

import (
	"math"
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
		{"ttfb p50", s.TTFB.P50, 500}, {"ttfb p90", s.TTFB.P90, 900}, {"ttfb p99", s.TTFB.P99, 990},
		{"ttfb p999", s.TTFB.P999, 999}, {"ttfb min", s.TTFB.Min, 1}, {"ttfb max", s.TTFB.Max, 1000},
		{"ttfb mean", s.TTFB.Mean, 500.5}, {"total p50", s.Total.P50, 1000},
		{"wait p50", s.Phases[nettrace.Wait].P50, 500},
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
	if s.Count != 1000 || s.TTFB.Count != 1000 || s.Requests != 1000 {
		t.Errorf("count %d ttfb count %d requests %d", s.Count, s.TTFB.Count, s.Requests)
	}
	if !near(s.TTFB.Stddev, 288.7, 0.01) {
		t.Errorf("stddev %v", s.TTFB.Stddev)
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
	if s.Count != 1 || s.Errors != 4 || !near(s.TTFB.Max, 10, 0.01) || s.Retries != 4 {
		t.Errorf("count %d errors %d max %v retries %d", s.Count, s.Errors, s.TTFB.Max, s.Retries)
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
	if s.First.Count != 1 || s.First.ReusedFraction != 0 || !near(s.First.TTFB.P50, 90, 0.01) {
		t.Errorf("first: %+v", s.First)
	}
	if s.Later.Count != 9 || s.Later.ReusedFraction != 1 || !near(s.Later.TTFB.P50, 10, 0.01) {
		t.Errorf("later: %+v", s.Later)
	}
	if !near(s.First.Phases[nettrace.Connect].P50, 45, 0.01) || s.Later.Phases[nettrace.Connect].Max != 0 {
		t.Errorf("connect first %v later %v", s.First.Phases[nettrace.Connect], s.Later.Phases[nettrace.Connect])
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
	if a.TTFB != b.TTFB || a.First.Count != 4 || a.First != b.First || a.Later.TTFB != b.Later.TTFB {
		t.Errorf("merged %+v\nsingle %+v", a.TTFB, b.TTFB)
	}
}

func TestRecorderMemoryBounded(t *testing.T) {
	t.Parallel()
	r := NewRecorder()
	before := r.ByteSize()
	for i := range 100_000 {
		s := sample(i, time.Duration(i)*time.Microsecond, time.Duration(i)*time.Microsecond, true)
		r.Add(&s)
	}
	if r.ByteSize() != before || before > 1<<20 {
		t.Errorf("recorder is %d bytes (was %d), want fixed and under 1 MiB", r.ByteSize(), before)
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
