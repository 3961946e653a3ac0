package stats

import "slices"

// KSDistance is the two-sample Kolmogorov–Smirnov statistic: the largest
// gap between the empirical distribution functions of a and b (0 to 1).
// It says whether two sets of latencies have the same shape, which two
// percentiles alone cannot. a and b are not changed.
func KSDistance(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	x, y := slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	var i, j int
	var d float64
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = max(d, abs(float64(i)/float64(len(x))-float64(j)/float64(len(y))))
	}
	return d
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
