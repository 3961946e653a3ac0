package stats

import (
	"math"
	"slices"
)

// Percentiles summarises a small exact sample, values in milliseconds, with
// nearest-rank percentiles: P99 is the smallest value that at least 99% of
// the values do not exceed, as an HDR histogram reports it. Stddev is the
// population standard deviation. NaN values are ignored; values is not
// modified. An empty sample gives the zero Dist.
func Percentiles(values []float64) Dist {
	v := make([]float64, 0, len(values))
	for _, x := range values {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return Dist{}
	}
	slices.Sort(v)
	n := len(v)
	// rank is the nearest rank of the permille-th percentile, in integers
	// so that 0.99*1000 cannot round up to 991.
	at := func(permille int) float64 {
		i := (permille*n + 999) / 1000
		return v[min(max(i, 1), n)-1]
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(n)
	var sq float64
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return Dist{
		Count:  int64(n),
		Min:    v[0],
		P50:    at(500),
		P90:    at(900),
		P99:    at(990),
		P999:   at(999),
		Max:    v[n-1],
		Mean:   finite(mean),
		Stddev: finite(math.Sqrt(sq / float64(n))),
	}
}
