package stats

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
)

// TestSumIsTheUnion: adding encoded histograms gives, bucket for bucket,
// the histogram of all their values.
func TestSumIsTheUnion(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var all []int64
	s := NewSum()
	for part := range 5 {
		var vs []int64
		for range 1000 * (part + 1) {
			vs = append(vs, int64(rng.ExpFloat64()*float64(2000*(part+1))))
		}
		vs = append(vs, 0, maxMicros+5) // clamped ends
		all = append(all, vs...)
		enc, err := HistogramOf(vs).Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddEncoded(enc); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddEncoded(""); err != nil {
		t.Fatal(err)
	}
	got, want := s.Histogram(), HistogramOf(all)
	if !got.Equal(want) || s.Count() != int64(len(all)) {
		t.Fatalf("sum: count %d p99 %v; union: count %d p99 %v", s.Count(), got.Quantile(99), want.Count(), want.Quantile(99))
	}
	// Written straight from the counts, it decodes to the same histogram.
	fast, err := s.EncodeFast()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeHistogram([]byte(fast))
	if err != nil || !back.Equal(want) {
		t.Fatalf("EncodeFast: %v, equal %t", err, err == nil && back.Equal(want))
	}
	s2 := NewSum()
	if err := s2.AddEncoded(fast); err != nil || !s2.Histogram().Equal(want) {
		t.Fatalf("EncodeFast read back by Sum: %v", err)
	}
	if err := s.AddEncoded("not base64!"); err == nil {
		t.Fatal("corrupt input accepted")
	}
}

// TestRecorderEncode: recorders encoded, decoded and merged summarise as
// the recorders merged in memory do.
func TestRecorderEncode(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(n int, base time.Duration) *Recorder {
		r := NewRecorder()
		for i := range n {
			start := time.Unix(0, 0)
			d := base + time.Duration(rng.ExpFloat64()*float64(time.Millisecond))
			s := nettrace.Sample{Start: start, FirstByte: start.Add(d / 2), End: start.Add(d), Seq: i % 50, Reused: i%50 != 0, Requests: 1, Size: 100}
			s.Phases[nettrace.Wait] = d / 3
			if i%97 == 0 {
				s.Err, s.ErrClass = "boom", "5xx"
			}
			r.Add(&s)
		}
		return r
	}
	a, b := mk(3000, time.Millisecond), mk(2000, 5*time.Millisecond)
	want := NewRecorder()
	want.Merge(a)
	want.Merge(b)
	got := NewRecorder()
	var encs [][]byte
	for _, r := range []*Recorder{a, b} {
		enc, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		encs = append(encs, enc)
		d, err := DecodeRecorder(enc)
		if err != nil {
			t.Fatal(err)
		}
		got.Merge(d)
	}
	summed, err := MergeEncoded(encs)
	if err != nil {
		t.Fatal(err)
	}
	wj, _ := json.Marshal(want.Summarize(100, time.Second))
	for name, r := range map[string]*Recorder{"decoded and merged": got, "MergeEncoded": summed} {
		if gj, _ := json.Marshal(r.Summarize(100, time.Second)); string(wj) != string(gj) {
			t.Fatalf("%s:\n%s\nmerged in memory:\n%s", name, gj, wj)
		}
	}
}
