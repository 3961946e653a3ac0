package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Change is the difference of one statistic between runs A and B (B − A),
// with a bootstrap 95% confidence interval.
type Change struct {
	A, B  float64 `json:"-"`
	Delta float64 `json:"delta"`
	Lo    float64 `json:"ci95_lo"`
	Hi    float64 `json:"ci95_hi"`
	// Relative is Delta / A (0 when A is 0).
	Relative float64 `json:"relative"`
}

// Significant reports whether the interval excludes zero.
func (c Change) Significant() bool { return c.Lo > 0 || c.Hi < 0 }

// quantile of sorted values (linear interpolation).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}

// BootstrapQuantile compares quantile q (0.5 for the median) of a and b by
// resampling both with replacement rounds times (percentile interval).
func BootstrapQuantile(a, b []float64, q float64, rounds int, rng *rand.Rand) Change {
	sa, sb := sortedCopy(a), sortedCopy(b)
	c := Change{A: quantile(sa, q), B: quantile(sb, q)}
	c.Delta = c.B - c.A
	if c.A != 0 {
		c.Relative = c.Delta / c.A
	}
	if len(a) == 0 || len(b) == 0 || rounds <= 0 {
		c.Lo, c.Hi = c.Delta, c.Delta
		return c
	}
	deltas := make([]float64, rounds)
	ra, rb := make([]float64, len(a)), make([]float64, len(b))
	for r := range deltas {
		for i := range ra {
			ra[i] = a[rng.IntN(len(a))]
		}
		for i := range rb {
			rb[i] = b[rng.IntN(len(b))]
		}
		slices.Sort(ra)
		slices.Sort(rb)
		deltas[r] = quantile(rb, q) - quantile(ra, q)
	}
	slices.Sort(deltas)
	c.Lo, c.Hi = quantile(deltas, 0.025), quantile(deltas, 0.975)
	return c
}

func sortedCopy(v []float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}

// MannWhitney returns the two-sided p-value of the Mann-Whitney U test that
// a and b come from the same distribution (normal approximation with tie
// correction; fine from about 8 values per side).
func MannWhitney(a, b []float64) float64 {
	n1, n2 := float64(len(a)), float64(len(b))
	if n1 == 0 || n2 == 0 {
		return 1
	}
	type v struct {
		x    float64
		from int
	}
	all := make([]v, 0, len(a)+len(b))
	for _, x := range a {
		all = append(all, v{x, 0})
	}
	for _, x := range b {
		all = append(all, v{x, 1})
	}
	slices.SortFunc(all, func(p, q v) int {
		switch {
		case p.x < q.x:
			return -1
		case p.x > q.x:
			return 1
		}
		return 0
	})
	var r1, tie float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		rank := float64(i+j+1) / 2 // average of ranks i+1..j
		t := float64(j - i)
		tie += t*t*t - t
		for k := i; k < j; k++ {
			if all[k].from == 0 {
				r1 += rank
			}
		}
		i = j
	}
	u1 := r1 - n1*(n1+1)/2
	mean := n1 * n2 / 2
	n := n1 + n2
	variance := n1 * n2 / 12 * ((n + 1) - tie/(n*(n-1)))
	if variance <= 0 {
		return 1
	}
	z := (math.Abs(u1-mean) - 0.5) / math.Sqrt(variance)
	if z < 0 {
		z = 0
	}
	return math.Erfc(z / math.Sqrt2)
}

// LinearFit fits y = a + b·x by least squares.
func LinearFit(xs, ys []float64) (a, b float64, ok bool) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, 0, false
	}
	b = (n*sxy - sx*sy) / den
	a = (sy - b*sx) / n
	return a, b, true
}
