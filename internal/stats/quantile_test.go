package stats

import (
	"math"
	"testing"
)

func TestPercentilesDraw(t *testing.T) {
	t.Parallel()
	values := make([]float64, 1001)
	for i := range values {
		values[len(values)-1-i] = float64(i) / 100 // 0 to 10, reversed
	}
	pct := Percentiles101(values)
	if len(pct) != 101 || pct[0] != 0 || pct[100] != 10 || math.Abs(pct[50]-5) > 1e-9 {
		t.Fatalf("percentiles: %d values, p0 %g p50 %g p100 %g", len(pct), pct[0], pct[50], pct[100])
	}
	for _, c := range []struct{ u, want float64 }{{0, 0}, {0.5, 5}, {0.255, 2.55}, {0.999999, 10}} {
		if got := DrawPercentile(pct, c.u); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("draw at %g: %g, want %g", c.u, got, c.want)
		}
	}
}
