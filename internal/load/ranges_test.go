package load

import (
	"fmt"
	"testing"
)

// TestRangeGrid: only part sizes below the object, and per part size only
// the parallelism that differ (up to the first at or above the part count).
func TestRangeGrid(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		size int64
		want string
	}{
		{1 * mib, "[]"},
		{24 * mib, "[4194304x4 4194304x8 8388608x4 16777216x4]"},
		{64 * mib, "[4194304x4 4194304x8 4194304x16 8388608x4 8388608x8 16777216x4 33554432x4]"},
		{1 << 30, "[4194304x4 4194304x8 4194304x16 8388608x4 8388608x8 8388608x16 16777216x4 16777216x8 16777216x16 33554432x4 33554432x8 33554432x16]"},
	} {
		var got []string
		for _, d := range rangeGrid(tc.size, DefaultSweepPartSizes, DefaultSweepParallel) {
			if d.Mode != DownloadRanged {
				t.Errorf("%d: mode %q", tc.size, d.Mode)
			}
			got = append(got, fmt.Sprintf("%dx%d", d.PartSize, d.Parallel))
		}
		if s := fmt.Sprint(got); s != tc.want && !(len(got) == 0 && tc.want == "[]") {
			t.Errorf("size %d: grid %s, want %s", tc.size, s, tc.want)
		}
	}
}

// TestParseWorkloadsRanges: ranges is a workload of its own, not in all.
func TestParseWorkloadsRanges(t *testing.T) {
	got, err := ParseWorkloads("ranges")
	if err != nil || len(got) != 1 || got[0] != Ranges {
		t.Fatalf("ParseWorkloads(ranges) = %v, %v", got, err)
	}
	all, _ := ParseWorkloads("all")
	for _, w := range all {
		if w == Ranges {
			t.Errorf("all includes ranges: %v", all)
		}
	}
}
