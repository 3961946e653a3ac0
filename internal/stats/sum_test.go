package stats

import (
	"math/rand/v2"
	"testing"
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
