package stats

import "slices"

// DrawPercentile is the inverse of the empirical distribution given by its
// percentiles 0..100 at u in [0, 1), interpolated linearly.
func DrawPercentile(pct []float64, u float64) float64 {
	if len(pct) == 0 {
		return 0
	}
	x := u * float64(len(pct)-1)
	i := int(x)
	if i >= len(pct)-1 {
		return pct[len(pct)-1]
	}
	return max(0, pct[i]+(x-float64(i))*(pct[i+1]-pct[i]))
}

// Percentiles101 are the percentiles 0, 1, …, 100 of values (sorted in
// place), interpolated linearly between order statistics.
func Percentiles101(values []float64) []float64 {
	if len(values) == 0 {
		return nil
	}
	slices.Sort(values)
	out := make([]float64, 101)
	for p := range out {
		out[p] = Quantile(values, float64(p)/100)
	}
	return out
}

// Quantile is the q quantile of sorted values, interpolated linearly.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	x := q * float64(len(sorted)-1)
	i := int(x)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
}
