package session

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

// openLab resolves the embedded lab's S3 endpoint as TARGET lab does
// (profile local: the machine's own times, no emulated link).
func openLab(t *testing.T, runID string, persistent bool) *target.Env {
	t.Helper()
	env, err := target.Open(context.Background(), target.Config{URL: "lab", LabAPI: "s3", Lab: lab.Config{},
		Timeout: 30 * time.Second, RunID: runID, Persistent: persistent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env
}

// small is a run of few requests: one GET pool, and one op size.
func small(workloads string) load.RunSettings {
	return load.RunSettings{Workloads: workloads, Objects: 2, ObjectSize: "1KiB", Gets: 10, LatencyConcurrency: 1,
		OpSizes: "0", OpCount: 2, Sizes: "64KiB", SizeCount: 2, Levels: "1", LevelSize: "1KiB", MaxAttempts: 1}
}

// runConfig is the Config the command line would make of rs on env, the
// hooks counted into h.
func runConfig(t *testing.T, env *target.Env, runID string, rs load.RunSettings, h *hooks) Config {
	t.Helper()
	opts, err := rs.Options()
	if err != nil {
		t.Fatal(err)
	}
	open := &load.OpenSettings{Interval: time.Second, MaxInflight: 64, Arrivals: string(load.Uniform)}
	if err := open.Apply(&opts, rs.Sizes, units.FormatSizes(load.Defaults().Sizes)); err != nil {
		t.Fatal(err)
	}
	return Config{Env: env, NewClient: env.Factory(nettrace.Pooled, false, env.Options.Upload, 1),
		RunID: runID, Started: time.Now(), Strategy: string(nettrace.Pooled), Options: rs.AsMap(),
		Labels: map[string]string{"env": "test"}, Opts: opts, Open: open, Timeout: 30 * time.Second,
		KeepSamples: 5, Prices: analysis.DefaultPrices(), Stderr: &h.stderr,
		OnStep:     func(i, n int) { h.step(n) },
		OnProgress: func(*load.Step, int64, time.Duration) {},
		OnInterval: func(*load.Step, []stats.Interval) {},
		OnDone:     func() { h.done++ },
		Notify:     func(line string) { h.notes = append(h.notes, line) },
	}
}

// hooks count what a run reports.
type hooks struct {
	mu     sync.Mutex
	steps  int
	of     int
	done   int
	notes  []string
	stderr bytes.Buffer
}

func (h *hooks) step(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steps, h.of = h.steps+1, n
}

// rows are a run's results as "op size count".
func rows(d *document.Document) []string {
	var out []string
	for _, r := range d.Results {
		out = append(out, fmt.Sprintf("%s %s %d", r.Op, units.FormatSize(r.SizeBytes), r.Count+r.Errors))
	}
	return out
}

// TestRun: a small run on the lab gives a document with the steps asked
// for, each with every request, the options as given (a download mode
// named only when not the default, the caller's map untouched), the
// labels, the kept samples capped, and prices applied.
func TestRun(t *testing.T) {
	for _, c := range []struct {
		name     string
		rs       load.RunSettings
		download string
		want     []string
		kept     int // of 5 asked: every request when fewer
	}{
		{"latency", small("latency"), load.DownloadStream, []string{"get 1KiB 10", "put 0B 2", "head 0B 2", "delete 0B 2"}, 5},
		{"throughput ranged", small("throughput"), load.DownloadRanged, []string{"put 64KiB 2", "get 64KiB 2"}, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			runID := document.NewRunID()
			env := openLab(t, runID, false)
			var h hooks
			cfg := runConfig(t, env, runID, c.rs, &h)
			cfg.Download = c.download
			given := len(cfg.Options)
			out, err := Run(context.Background(), cfg)
			if err != nil || out.Err != nil {
				t.Fatalf("run: %v, %v (stderr %s)", err, out.Err, h.stderr.String())
			}
			defer out.Close()
			d := out.Doc
			if got := rows(d); strings.Join(got, ", ") != strings.Join(c.want, ", ") {
				t.Errorf("results %q, want %q", got, c.want)
			}
			for _, r := range d.Results {
				if r.Errors != 0 {
					t.Errorf("%s %d: %d errors %v", r.Op, r.SizeBytes, r.Errors, r.ErrorsByClass)
				}
			}
			if d.Command != "run" || d.RunID != runID || d.Interrupted || d.DurationS <= 0 || d.Labels["env"] != "test" || d.Target.URL == "" {
				t.Errorf("envelope: command %q, id %q (want %q), interrupted %t, %g s, labels %v, target %q",
					d.Command, d.RunID, runID, d.Interrupted, d.DurationS, d.Labels, d.Target.URL)
			}
			if mode, named := d.Options["download"]; (c.download == load.DownloadRanged) != named || (named && mode != c.download) {
				t.Errorf("options download %q (named %t), asked %q", mode, named, c.download)
			}
			if len(cfg.Options) != given || cfg.Options["download"] != "" {
				t.Errorf("the caller's options were changed: %v", cfg.Options)
			}
			if h.steps != len(c.want) || h.of != len(c.want) || h.done != 1 {
				t.Errorf("hooks: %d steps of %d, done %d times; want %d steps", h.steps, h.of, h.done, len(c.want))
			}
			if len(out.Histograms) != len(d.Results) {
				t.Errorf("%d histogram sets for %d results", len(out.Histograms), len(d.Results))
			}
			kept := 0
			for range out.Kept {
				kept++
			}
			if kept != c.kept {
				t.Errorf("%d samples kept, want %d", kept, c.kept)
			}
			if d.Cost == nil {
				t.Error("the document was not priced")
			}
		})
	}
}

// TestRunFailsWithNoResult: a run that stopped before any result is the
// error itself, not an outcome to show.
func TestRunFailsWithNoResult(t *testing.T) {
	runID := document.NewRunID()
	env := openLab(t, runID, false)
	var h hooks
	cfg := runConfig(t, env, runID, small("latency"), &h)
	cfg.NewClient = func(context.Context) (*load.Client, error) { return nil, fmt.Errorf("no client today") }
	out, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "no client today") {
		t.Fatalf("run with no client: %v (results %v)", err, out.Doc)
	}
}

// TestKeep: where a finished document goes, by what Keep says: stored in
// the database with its steps and kept samples (or not, with NoSave), the
// HTML page when asked, and a database that cannot be written is a
// warning while a report that cannot be is the error; what is printed is
// only that.
func TestKeep(t *testing.T) {
	runID := document.NewRunID()
	env := openLab(t, runID, false)
	var h hooks
	out, err := Run(context.Background(), runConfig(t, env, runID, small("latency"), &h))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	dir := t.TempDir()
	notADir := filepath.Join(dir, "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		keep   func(dir string) Keep
		stored bool
		report bool
		err    bool
		stderr string
	}{
		{"stored", func(dir string) Keep { return Keep{DB: filepath.Join(dir, "r.db")} }, true, false, false, ""},
		{"no save", func(dir string) Keep { return Keep{DB: filepath.Join(dir, "r.db"), NoSave: true} }, false, false, false, ""},
		{"report", func(dir string) Keep {
			return Keep{DB: filepath.Join(dir, "r.db"), NoSave: true, Report: filepath.Join(dir, "run.html")}
		}, false, true, false, "wrote "},
		{"report not writable", func(dir string) Keep {
			return Keep{DB: filepath.Join(dir, "r.db"), Report: filepath.Join(notADir, "run.html")}
		}, true, false, true, ""},
		{"database not writable", func(string) Keep { return Keep{DB: filepath.Join(notADir, "r.db")} }, false, false, false, "not saved"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			k := c.keep(dir)
			var stderr bytes.Buffer
			err := k.Save(out.Doc, out.Histograms, out.Kept, &stderr)
			if (err != nil) != c.err {
				t.Fatalf("save: %v, want an error %t", err, c.err)
			}
			if c.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), c.stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "run.html")); (err == nil) != c.report {
				t.Errorf("report written: %v, want %t", err, c.report)
			}
			if !c.stored {
				if _, err := os.Stat(k.DB); err == nil && c.stderr == "" {
					t.Errorf("%s was made with nothing stored", k.DB)
				}
				return
			}
			steps, samples := stored(t, k.DB, runID)
			if steps != len(out.Doc.Results) || samples != 5 {
				t.Errorf("stored %d steps and %d samples, want %d and 5", steps, samples, len(out.Doc.Results))
			}
		})
	}
}

// stored is how many steps and samples the database at db holds of run id.
func stored(t *testing.T, db, id string) (steps int, samples int64) {
	t.Helper()
	ctx := context.Background()
	st, err := results.OpenAt(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, ss, err := st.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Command == "" || run.Interrupted {
		t.Errorf("stored run: command %q, interrupted %t", run.Command, run.Interrupted)
	}
	n, err := st.CountSamples(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return len(ss), n
}

// journalRows counts what the database at db holds in its journal.
func journalRows(t *testing.T, db string) int {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	total := 0
	for _, table := range []string{"journal_runs", "journal_steps", "journal_results"} {
		var n int
		if err := h.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

// TestRunJournaled: a journaled run is in the database as it goes and
// until it is saved or closed (a process killed while it prints keeps
// it); once saved it is a finished run with no journal left, and one
// closed unsaved leaves no journal either (it was not killed).
func TestRunJournaled(t *testing.T) {
	for _, save := range []bool{true, false} {
		t.Run(fmt.Sprintf("saved %t", save), func(t *testing.T) {
			runID := document.NewRunID()
			env := openLab(t, runID, false)
			var h hooks
			db := filepath.Join(t.TempDir(), "results.db")
			cfg := runConfig(t, env, runID, small("latency"), &h)
			cfg.DB, cfg.Journal = db, true
			journaled := 0
			step := cfg.OnStep
			cfg.OnStep = func(i, n int) { // the step before is in the journal by now
				if i > 0 {
					journaled = max(journaled, journalRows(t, db))
				}
				step(i, n)
			}
			out, err := Run(context.Background(), cfg)
			if err != nil || out.Err != nil {
				t.Fatalf("run: %v, %v (stderr %s)", err, out.Err, h.stderr.String())
			}
			if journaled == 0 {
				t.Error("nothing was journaled while the run went")
			}
			if n := journalRows(t, db); n == 0 {
				t.Error("the journal was dropped before the run was saved")
			}
			if save {
				if err := (Keep{DB: db}).Save(out.Doc, out.Histograms, out.Kept, &h.stderr); err != nil {
					t.Fatal(err)
				}
				if n := journalRows(t, db); n != 0 {
					t.Errorf("%d journal rows left after the run was saved", n)
				}
			}
			out.Close()
			if n := journalRows(t, db); n != 0 {
				t.Errorf("%d journal rows left after the run was closed", n)
			}
			if save {
				if steps, _ := stored(t, db, runID); steps != len(out.Doc.Results) {
					t.Errorf("stored %d steps, want %d", steps, len(out.Doc.Results))
				}
			}
			if h.stderr.Len() > 0 {
				t.Errorf("warnings: %s", h.stderr.String())
			}
		})
	}
}

// TestKeepCheck: what a command keeps is checked before any work starts:
// a negative KeepSamples (named by its field), a report whose folder is
// not there and a label that is not k=v are refused; NoSave keeps no
// sample; the labels come back parsed.
func TestKeepCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		keep    Keep
		samples int               // KeepSamples after the check
		labels  map[string]string // when no error
		field   string            // the field a usage error names
		err     string            // "" no error
	}{
		{name: "kept", keep: Keep{KeepSamples: 100, Labels: []string{"env=laptop", " k = v "}}, samples: 100,
			labels: map[string]string{"env": "laptop", "k": "v"}},
		{name: "no save keeps no sample", keep: Keep{NoSave: true, KeepSamples: 100}, samples: 0, labels: map[string]string{}},
		{name: "report in a folder", keep: Keep{Report: filepath.Join(dir, "run.html")}, labels: map[string]string{}},
		{name: "negative samples", keep: Keep{KeepSamples: -1}, samples: -1, field: "KeepSamples", err: "KeepSamples must not be negative"},
		{name: "negative samples with no save", keep: Keep{KeepSamples: -1, NoSave: true}, samples: -1, field: "KeepSamples",
			err: "KeepSamples must not be negative"},
		{name: "report's folder missing", keep: Keep{Report: filepath.Join(dir, "no", "run.html")}, err: "folder " + filepath.Join(dir, "no") + " does not exist"},
		{name: "label not k=v", keep: Keep{Labels: []string{"env"}}, err: `--label "env"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			k := c.keep
			labels, err := k.Check()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || usage.FieldOf(err) != c.field {
					t.Fatalf("err %v (field %q), want %q (field %q)", err, usage.FieldOf(err), c.err, c.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.KeepSamples != c.samples || fmt.Sprint(labels) != fmt.Sprint(c.labels) {
				t.Errorf("KeepSamples %d, labels %v; want %d, %v", k.KeepSamples, labels, c.samples, c.labels)
			}
		})
	}
}
