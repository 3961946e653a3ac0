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

// TestRangeSweepTies: configurations the reads cannot tell apart from the
// fastest (and faster than one stream) are tied, and the finding names the
// one with the fewest parts in flight; a gain over one stream inside the
// reads' spread is neither advice to use ranges nor to keep one stream.
func TestRangeSweepTies(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	res := func(part int64, par int, mbps, mean, sd float64, n int64) document.Result {
		r := document.Result{Workload: "ranges", Op: "get", SizeBytes: 256 * mib, Concurrency: 1, Count: n, AggregateMBps: mbps,
			TotalMs: document.Dist{Count: n, Mean: mean, Stddev: sd, P50: mean}}
		if part > 0 {
			r.Parts = &document.Parts{SizeBytes: part, Parallel: par}
		}
		return r
	}
	for _, tc := range []struct {
		name       string
		rs         []document.Result
		wants, not []string
		tied       float64
	}{
		{"welch: 8 at a time as fast as 16", []document.Result{res(0, 0, 100, 2560, 50, 5), res(8*mib, 16, 400, 640, 60, 5), res(8*mib, 8, 390, 656, 60, 5), res(8*mib, 4, 250, 1024, 40, 5)},
			[]string{"8MiB ranges, up to 8 at a time", "of the 2 as fast within the noise"}, []string{"Fewer than"}, 2},
		{"welch: a clear winner", []document.Result{res(0, 0, 100, 2560, 50, 5), res(8*mib, 16, 400, 640, 5, 5), res(8*mib, 8, 300, 850, 5, 5)},
			[]string{"up to 16 at a time"}, []string{"within the noise"}, 1},
		{"welch: gain inside the spread", []document.Result{res(0, 0, 100, 2560, 900, 3), res(8*mib, 4, 120, 2100, 900, 3)},
			[]string{"vary too much to tell it from one stream", "larger --size-count"}, []string{"keep one stream"}, 0},
		{"few reads: 10% margin, then the larger parts", []document.Result{res(0, 0, 100, 2560, 0, 1), res(8*mib, 8, 400, 640, 0, 1), res(16*mib, 8, 370, 690, 0, 1), res(4*mib, 16, 405, 630, 0, 1)},
			[]string{"16MiB ranges, up to 8 at a time", "of the 3 as fast", "Fewer than 3 reads", "--size-count 5"}, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := rangeSweepRule(&Facts{Doc: labDoc(tc.rs...)})
			if len(fs) != 1 {
				t.Fatalf("%d findings, want 1", len(fs))
			}
			for _, w := range tc.wants {
				if !strings.Contains(fs[0].Text, w) {
					t.Errorf("%q\nwant %q", fs[0].Text, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(fs[0].Text, w) {
					t.Errorf("%q\nwant no %q", fs[0].Text, w)
				}
			}
			if got := fs[0].Evidence["tied"]; got != tc.tied {
				t.Errorf("tied %v, want %v", got, tc.tied)
			}
		})
	}
}
