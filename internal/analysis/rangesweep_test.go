package analysis

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// TestRangeSweepRule: per size, the fastest ranged configuration against
// the one stream; a gain under 10% says to keep one stream; a size with
// no stream step, or an errored step, is not judged.
func TestRangeSweepRule(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	ranged := func(size, part int64, par int, mbps float64, errs int64) document.Result {
		r := document.Result{Workload: "ranges", Op: "get", SizeBytes: size, Concurrency: 1, Count: 4, Errors: errs, AggregateMBps: mbps}
		if part > 0 {
			r.Parts = &document.Parts{SizeBytes: part, Parallel: par}
		}
		return r
	}
	for _, tc := range []struct {
		name  string
		rs    []document.Result
		ids   []string
		wants []string
	}{
		{"gain", []document.Result{ranged(64*mib, 0, 0, 100, 0), ranged(64*mib, 4*mib, 4, 250, 0), ranged(64*mib, 8*mib, 16, 420, 0),
			ranged(64*mib, 16*mib, 4, 900, 3)}, // errored: not the best
			[]string{"range-sweep-64MiB"},
			[]string{"64MiB objects download fastest in 8MiB ranges, up to 16 at a time: 420 MB/s against 100 MB/s in one stream (4.2×", "--part-size 8MiB --part-concurrency 16", "best of 2 configurations"}},
		{"no gain", []document.Result{ranged(16*mib, 0, 0, 500, 0), ranged(16*mib, 4*mib, 4, 520, 0)},
			[]string{"range-sweep-16MiB"}, []string{"gain little", "keep one stream"}},
		{"two sizes", []document.Result{ranged(8*mib, 0, 0, 50, 0), ranged(8*mib, 4*mib, 4, 90, 0), ranged(32*mib, 0, 0, 60, 0), ranged(32*mib, 16*mib, 4, 200, 0)},
			[]string{"range-sweep-8MiB", "range-sweep-32MiB"}, []string{"16MiB ranges"}},
		{"no stream", []document.Result{ranged(64*mib, 4*mib, 4, 250, 0)}, nil, nil},
		{"other workload", []document.Result{{Workload: "throughput", Op: "get", SizeBytes: mib, Count: 3, AggregateMBps: 10}}, nil, nil},
	} {
		fs := rangeSweepRule(&Facts{Doc: labDoc(tc.rs...)})
		var ids []string
		text := ""
		for _, f := range fs {
			ids = append(ids, f.ID)
			text += f.Text + "\n"
			if f.Severity != Info {
				t.Errorf("%s: severity %s", tc.name, f.Severity)
			}
		}
		if strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
			t.Errorf("%s: ids %v, want %v", tc.name, ids, tc.ids)
		}
		for _, w := range tc.wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q\nwant %q", tc.name, text, w)
			}
		}
	}
}
