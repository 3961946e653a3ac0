package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestKSDistance(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	uniform := func(n int, lo, hi float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = lo + (hi-lo)*r.Float64()
		}
		return xs
	}
	cases := []struct {
		name   string
		a, b   []float64
		lo, hi float64
	}{
		{"identical", []float64{1, 2, 3}, []float64{3, 2, 1}, 0, 0},
		{"disjoint", []float64{1, 2}, []float64{5, 6, 7}, 1, 1},
		{"half shifted", []float64{1, 2, 3, 4}, []float64{3, 4, 5, 6}, 0.5, 0.5},
		{"ties across samples", []float64{1, 1, 2}, []float64{1, 2, 2}, 1.0 / 3, 1.0 / 3},
		{"empty", nil, []float64{1}, 1, 1},
		// Same distribution, 2000 each: under 1.36·sqrt(2/2000) = 0.043 at 95%.
		{"same uniform", uniform(2000, 0, 1), uniform(2000, 0, 1), 0, 0.043},
		// U(0,1) against U(0.2,1.2): the CDFs differ by 0.2 over [0.2, 1].
		{"shifted uniform", uniform(2000, 0, 1), uniform(2000, 0.2, 1.2), 0.16, 0.24},
	}
	for _, c := range cases {
		got := KSDistance(c.a, c.b)
		if got < c.lo-1e-9 || got > c.hi+1e-9 || math.IsNaN(got) {
			t.Errorf("%s: KS %.4f, want %.3f to %.3f", c.name, got, c.lo, c.hi)
		}
	}
}
