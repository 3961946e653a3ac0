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
	if err := s.AddEncoded("not base64!"); err == nil {
		t.Fatal("corrupt input accepted")
	}
}
