package stats

import (
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
)

// TestSeriesBounded: a series of many ticks keeps at most its cap of
// intervals, all of one length (the last one may be shorter), covering the
// whole step, and its counts and histograms add up to the ticks' exactly.
func TestSeriesBounded(t *testing.T) {
	tests := []struct {
		name                 string
		max, start, ticks    int
		wantLen, wantPerTick int
	}{
		{"under the cap", 8, 1, 8, 8, 1},
		{"one past the cap", 8, 1, 9, 5, 2},
		{"twice the cap and one", 8, 1, 17, 5, 4},
		{"odd cap, rounded up", 7, 1, 9, 5, 2},
		{"planned at 4 ticks an interval", 8, 4, 10, 3, 4},
		{"planned at 4, run twice as long as the cap", 8, 4, 33, 5, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSeries(tt.max, tt.start)
			var ticks []Interval
			w := NewIntervalRecorder()
			for i := range tt.ticks {
				for j := range i%5 + 1 {
					w.Add(sampleOf(time.Millisecond, time.Duration(i+j+1)*time.Millisecond))
				}
				if i%7 == 0 {
					w.Add(&nettrace.Sample{Err: "x", ErrClass: "timeout"})
					w.Late()
				}
				iv := Drain("get", time.Duration(i)*time.Second, time.Duration(i+1)*time.Second, []*IntervalRecorder{w})
				iv.InFlight, iv.NewConns = int64(i%9), 1
				ticks = append(ticks, iv)
				if err := s.Add(iv); err != nil {
					t.Fatal(err)
				}
			}
			got := s.Intervals()
			if len(got) != tt.wantLen || s.Ticks() != tt.wantPerTick {
				t.Fatalf("%d ticks: %d intervals of %d ticks, want %d of %d", tt.ticks, len(got), s.Ticks(), tt.wantLen, tt.wantPerTick)
			}
			var count, errs, late, conns, inflight, bytes int64
			for i, iv := range got {
				if iv.StartS != float64(i*s.Ticks()) || (i < len(got)-1 && iv.EndS != float64((i+1)*s.Ticks())) {
					t.Errorf("interval %d: [%g, %g), want [%d, %d)", i, iv.StartS, iv.EndS, i*s.Ticks(), (i+1)*s.Ticks())
				}
				count, errs, late, conns, bytes = count+iv.Count, errs+iv.Errors, late+iv.Late, conns+iv.NewConns, bytes+iv.Bytes
				inflight = max(inflight, iv.InFlight)
				if iv.Errors != iv.ErrorsByClass["timeout"] {
					t.Errorf("interval %d: %d errors, %v by class", i, iv.Errors, iv.ErrorsByClass)
				}
			}
			if last := got[len(got)-1].EndS; last != float64(tt.ticks) {
				t.Errorf("the series ends at %g, want %d", last, tt.ticks)
			}
			var want Interval
			for _, iv := range ticks {
				want.Count, want.Errors, want.Late = want.Count+iv.Count, want.Errors+iv.Errors, want.Late+iv.Late
				want.NewConns, want.Bytes, want.InFlight = want.NewConns+iv.NewConns, want.Bytes+iv.Bytes, max(want.InFlight, iv.InFlight)
			}
			if count != want.Count || errs != want.Errors || late != want.Late || conns != want.NewConns || bytes != want.Bytes ||
				inflight != want.InFlight {
				t.Errorf("sums: count %d errors %d late %d conns %d bytes %d in flight %d, want %+v", count, errs, late, conns, bytes,
					inflight, want)
			}
			for _, metric := range []string{"ttfb", "total"} {
				a, err := SumSeries(got, metric)
				if err != nil {
					t.Fatal(err)
				}
				b, err := SumSeries(ticks, metric)
				if err != nil {
					t.Fatal(err)
				}
				if !a.Equal(b) {
					t.Errorf("%s: the kept intervals' histograms do not add up to the ticks'", metric)
				}
			}
		})
	}
}

// TestSeriesDefaults: no cap given is MaxIntervals; no ticks, one.
func TestSeriesDefaults(t *testing.T) {
	if s := NewSeries(0, 0); s.max != MaxIntervals || s.Ticks() != 1 {
		t.Errorf("NewSeries(0, 0): a cap of %d, %d ticks an interval; want %d and 1", s.max, s.Ticks(), MaxIntervals)
	}
}

// TestTicksFor: a planned step fits in half the cap, in power-of-two ticks.
func TestTicksFor(t *testing.T) {
	for _, tt := range []struct {
		planned float64
		want    int
	}{{0, 1}, {60, 1}, {MaxIntervals / 2, 1}, {MaxIntervals/2 + 1, 2}, {4000, 16}} {
		if got := TicksFor(tt.planned); got != tt.want {
			t.Errorf("TicksFor(%g) = %d, want %d", tt.planned, got, tt.want)
		}
	}
}

// BenchmarkSeriesAdd: the cost of one tick once the series merges (a
// decode of two histograms and an encode per metric), with 2,500
// operations a tick.
func BenchmarkSeriesAdd(b *testing.B) {
	w := NewIntervalRecorder()
	for i := range 2500 {
		w.Add(sampleOf(time.Millisecond, time.Duration(1000+i*37%9000)*time.Microsecond))
	}
	iv := Drain("get", 0, time.Second, []*IntervalRecorder{w})
	s := NewSeries(2, 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Add(iv)
	}
}

// sampleOf is a successful 10-byte operation of the given TTFB and total.
func sampleOf(ttfb, total time.Duration) *nettrace.Sample {
	start := time.Unix(0, 0)
	return &nettrace.Sample{Start: start, FirstByte: start.Add(ttfb), End: start.Add(total), Bytes: 10}
}

// BenchmarkDrain: one tick of one op (25 operations) drained and encoded
// with the series' reused accumulator and encoder. A new pair of
// histograms and hdr's own encoding per tick were 1.9 ms and 2.0 MB; this
// is 0.38 ms and 0.39 MB (the copy of two histograms' counts).
func BenchmarkDrain(b *testing.B) {
	w := NewIntervalRecorder()
	s := NewSeries(0, 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for j := range 25 {
			w.Add(sampleOf(time.Millisecond, time.Duration(i%50+j+1)*time.Millisecond))
		}
		s.Drain("get", 0, time.Second, []*IntervalRecorder{w})
	}
}
