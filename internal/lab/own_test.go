package lab

import (
	"testing"
	"time"
)

func TestTrimmedMean(t *testing.T) {
	t.Parallel()
	ms := func(v ...float64) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x * float64(time.Millisecond))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		waits []time.Duration
		want  time.Duration
	}{
		{"fewer than ten: all kept", ms(3, 1, 2), 2 * time.Millisecond},
		{"the slowest tenth dropped", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 1000), 5 * time.Millisecond},
		{"twenty: the slowest two dropped", ms(1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 500, 900), 2 * time.Millisecond},
	} {
		if got := trimmedMean(c.waits); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
