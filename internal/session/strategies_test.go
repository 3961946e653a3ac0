package session

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/units"
)

// TestStrategies: every strategy of the matrix is measured for each op
// and size asked for, each on every object with no error, reported as it
// starts; a download mode is named in the options only when not the
// default.
func TestStrategies(t *testing.T) {
	for _, c := range []struct {
		name          string
		sizes         []int64
		skipDownloads bool
		download      string
		ops           []string
	}{
		{"put and get", []int64{0, 1 << 10}, false, load.DownloadStream, []string{"put", "get"}},
		{"put only, ranged", []int64{1 << 10}, true, load.DownloadRanged, []string{"put"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			runID := document.NewRunID()
			env := openLab(t, runID, false)
			var started []string
			done := 0
			var notes []string
			out, err := Strategies(context.Background(), StrategiesConfig{Env: env, RunID: runID, Started: time.Now(),
				Options: map[string]string{"objects": "3"}, Labels: map[string]string{"env": "test"},
				Timeout: 30 * time.Second, Objects: 3, Parallel: 2, Sizes: c.sizes, SkipDownloads: c.skipDownloads,
				Download: c.download, Prices: analysis.DefaultPrices(),
				OnStrategy: func(op string, size int64, spec load.StrategySpec) {
					started = append(started, fmt.Sprintf("%s %s %s", op, units.FormatSize(size), spec.Name))
				},
				OnDone: func() { done++ },
				Notify: func(line string) { notes = append(notes, line) },
			})
			if err != nil || out.Err != nil {
				t.Fatalf("strategies: %v, %v", err, out.Err)
			}
			var want []string
			for _, op := range c.ops {
				for _, size := range c.sizes {
					for _, spec := range load.Strategies(load.SDKUpload(env.Target.Scheme), 2) {
						want = append(want, fmt.Sprintf("%s %s %s", op, units.FormatSize(size), spec.Name))
					}
				}
			}
			var got []string
			for _, r := range out.Doc.Strategies {
				got = append(got, fmt.Sprintf("%s %s %s", r.Op, units.FormatSize(r.SizeBytes), r.Strategy))
				if r.Objects != 3 || r.Errors != 0 {
					t.Errorf("%s %d %s: %d objects, %d errors", r.Op, r.SizeBytes, r.Strategy, r.Objects, r.Errors)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("rows %q,\nwant %q", got, want)
			}
			if slices.Sort(started); !slices.Equal(started, want) || done != 1 {
				t.Errorf("reported %q and done %d times,\nwant %q", started, done, want)
			}
			d := out.Doc
			if d.Command != "strategies" || d.RunID != runID || d.Interrupted || d.Labels["env"] != "test" || d.Cost == nil {
				t.Errorf("envelope: command %q, id %q, interrupted %t, labels %v, priced %t", d.Command, d.RunID, d.Interrupted, d.Labels, d.Cost != nil)
			}
			if mode, named := d.Options["download"]; (c.download == load.DownloadRanged) != named || d.Options["objects"] != "3" {
				t.Errorf("options %v (download %q named %t), asked %q", d.Options, mode, named, c.download)
			}
			if len(notes) > 0 {
				t.Errorf("notes: %q", notes)
			}
		})
	}
}
