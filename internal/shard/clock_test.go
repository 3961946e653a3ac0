package shard

import (
	"testing"
	"time"
)

func TestClockEstimate(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name           string
		stamps         []stamp
		offset, errMax time.Duration
	}{
		// The service's clock is 300 ms behind ours; it stamps milliseconds.
		{"milliseconds", []stamp{{at(1000), at(1010), at(700).Add(5 * time.Millisecond)}}, 300 * time.Millisecond, 6 * time.Millisecond},
		// Whole seconds: one probe bounds the offset to a second; four
		// spread over the second, one crossing into the next, narrow it to
		// a quarter. Our clock is 250 ms ahead.
		{"whole seconds, one probe", []stamp{{at(1300), at(1310), at(1000)}}, 0, 600 * time.Millisecond},
		{"whole seconds, four probes", []stamp{
			{at(1100), at(1110), at(0)}, {at(1350), at(1360), at(1000)}, {at(1600), at(1610), at(1000)}, {at(1850), at(1860), at(1000)},
		}, 250 * time.Millisecond, 140 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := estimate(tt.stamps)
			if !ok || c.Error > tt.errMax {
				t.Fatalf("estimate %+v, want error under %s", c, tt.errMax)
			}
			if d := c.Offset - tt.offset; d < -c.Error-time.Millisecond || d > c.Error+time.Millisecond {
				if tt.offset != 0 {
					t.Fatalf("offset %s ± %s, want %s within the bound", c.Offset, c.Error, tt.offset)
				}
			}
		})
	}
}
