package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
)

func newRunsCmd(g *globals, stdout io.Writer) *cobra.Command {
	var target, command, since, until string
	var labels []string
	var limit int
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List saved runs, newest first",
		Long: `runs lists the runs saved in the results database (--db), newest first, with
filters. Every run, strategies and later benchmark is saved automatically.`,
		Example: `  objbench runs
  objbench runs --target s3://my-bucket --since 2026-11-01
  objbench runs --label env=laptop --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := results.Filter{Target: target, Command: command, Limit: limit}
			var err error
			if f.Labels, err = parseLabels(labels); err != nil {
				return err
			}
			if f.Since, err = parseDate("--since", since); err != nil {
				return err
			}
			if f.Until, err = parseDate("--until", until); err != nil {
				return err
			}
			if limit < 0 {
				return usagef("--limit must not be negative")
			}
			var runs []results.Run
			if err := g.withStore(cmd.Context(), func(st *results.Store) (err error) {
				runs, err = st.List(cmd.Context(), f)
				return err
			}); err != nil {
				return err
			}
			out := bufio.NewWriterSize(stdout, 64<<10) // thousands of rows: few writes
			switch {
			case jsonOut:
				if err := writeRunsJSON(out, runs); err != nil {
					return err
				}
			case len(runs) == 0:
				fmt.Fprintln(out, "no saved runs match")
			default:
				writeRunsTable(out, runs)
			}
			return out.Flush()
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&target, "target", "", "only runs whose target URL contains this")
	fl.StringVar(&command, "command", "", "only runs of this command (run, strategies, ...)")
	fl.StringArrayVar(&labels, "label", nil, "only runs with this label, k=v (repeatable: all must match)")
	fl.StringVar(&since, "since", "", "only runs started on or after this date (2006-01-02 or RFC 3339)")
	fl.StringVar(&until, "until", "", "only runs started before this date")
	fl.IntVar(&limit, "limit", 0, "at most this many runs (0: all)")
	fl.BoolVar(&jsonOut, "json", false, `print {"runs": [...]}`)
	return cmd
}

// runRow is one run of `runs --json`.
type runRow struct {
	RunID       string            `json:"run_id"`
	StartedAt   string            `json:"started_at"`
	Command     string            `json:"command"`
	Target      string            `json:"target"`
	Labels      map[string]string `json:"labels"`
	DurationS   float64           `json:"duration_s"`
	Interrupted bool              `json:"interrupted,omitempty"`
}

// writeRunsJSON prints {"runs": [...]}, one run per line: each row is
// encoded on its own, which is much cheaper for thousands of runs than
// indenting the whole document.
func writeRunsJSON(w *bufio.Writer, runs []results.Run) error {
	w.WriteString("{\n  \"runs\": [")
	for i, r := range runs {
		b, err := json.Marshal(runRow{r.ID, r.StartedAt.UTC().Format(time.RFC3339), r.Command, r.TargetURL, nonNil(r.Labels), r.DurationS, r.Interrupted})
		if err != nil {
			return err
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		w.Write(b)
	}
	if len(runs) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString("]\n}\n")
	return nil
}

// writeRunsTable prints the runs in aligned columns (two passes: widths,
// then rows), as tabwriter would but without its per-cell work.
func writeRunsTable(w *bufio.Writer, runs []results.Run) {
	rows := make([][6]string, 0, len(runs)+1)
	rows = append(rows, [6]string{"RUN", "STARTED", "COMMAND", "TARGET", "DURATION", "LABELS"})
	for _, r := range runs {
		dur := strconv.FormatFloat(r.DurationS, 'f', 1, 64) + "s"
		if r.Interrupted {
			dur += " (interrupted)"
		}
		rows = append(rows, [6]string{r.ID, r.StartedAt.Local().Format("2006-01-02 15:04"), r.Command, r.TargetURL, dur, formatLabels(r.Labels)})
	}
	var width [6]int
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range rows {
		for i, c := range row {
			w.WriteString(c)
			if i < len(row)-1 {
				w.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		w.WriteByte('\n')
	}
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func formatLabels(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

func parseDate(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("%s %q: use a date such as 2026-11-22 or 2026-11-22T15:04:05Z", flag, s)
}

// loadRun reads a saved run and decodes its document by command.
type savedRun struct {
	run        results.Run
	steps      []results.Step
	doc        *report.Document
	strategies *report.StrategiesDocument
	startup    *report.StartupDocument
}

func loadRun(ctx context.Context, st *results.Store, id string) (*savedRun, error) {
	run, steps, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return decodeRun(run, steps)
}

// decodeRun decodes a run's document by the command that made it.
func decodeRun(run results.Run, steps []results.Step) (*savedRun, error) {
	sr := &savedRun{run: run, steps: steps}
	switch run.Command {
	case "run", "probe":
		sr.doc = &report.Document{}
		if err := json.Unmarshal(run.Document, sr.doc); err != nil {
			return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
		}
	case "strategies":
		sr.strategies = &report.StrategiesDocument{}
		if err := json.Unmarshal(run.Document, sr.strategies); err != nil {
			return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
		}
	case "startup":
		sr.startup = &report.StartupDocument{}
		if err := json.Unmarshal(run.Document, sr.startup); err != nil {
			return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
		}
	}
	return sr, nil
}

func oneRunCmd(use, short, long, example string, run func(ctx context.Context, st *results.Store, id string) error, g *globals) *cobra.Command {
	return &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("%s takes one RUN (an ID or a unique prefix from 'objbench runs')", strings.Fields(use)[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd.Context(), func(st *results.Store) error { return run(cmd.Context(), st, args[0]) })
		},
	}
}

func newShowCmd(g *globals, stdout io.Writer) *cobra.Command {
	var jsonOut bool
	cmd := oneRunCmd("show RUN", "Print a saved run's tables again", "show prints the tables of a saved run, read back from the results database.",
		"  objbench show 20261122T213000-ab12cd\n  objbench show 20261122T2130 --json",
		func(ctx context.Context, st *results.Store, id string) error {
			sr, err := loadRun(ctx, st, id)
			if err != nil {
				return err
			}
			switch {
			case jsonOut:
				_, err = fmt.Fprintf(stdout, "%s\n", sr.run.Document)
				return err
			case sr.doc != nil:
				return report.WriteText(stdout, sr.doc)
			case sr.strategies != nil:
				return report.WriteStrategiesText(stdout, sr.strategies)
			case sr.startup != nil:
				return report.WriteStartupText(stdout, sr.startup)
			}
			_, err = fmt.Fprintf(stdout, "%s\n", sr.run.Document)
			return err
		}, g)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the stored JSON document")
	return cmd
}

func newDeleteCmd(g *globals, stdout io.Writer) *cobra.Command {
	return oneRunCmd("delete RUN", "Delete a saved run", "delete removes a run, its steps and samples from the results database (never anything in a bucket).",
		"  objbench delete 20261122T213000-ab12cd",
		func(ctx context.Context, st *results.Store, id string) error {
			run, _, err := st.Get(ctx, id)
			if err != nil {
				return err
			}
			if err := st.Delete(ctx, run.ID); err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "deleted run %s\n", run.ID)
			return err
		}, g)
}

func newExportCmd(g *globals, stdout io.Writer) *cobra.Command {
	var format string
	cmd := oneRunCmd("export RUN", "Export a saved run as JSON, CSV, or its raw samples as CSV",
		`export writes a saved run: json (the objbench/v1 document), csv (one row per step), or
samples (one row per kept request with every phase column, in milliseconds; pandas reads it
with pd.read_csv).`,
		"  objbench export RUN --format json > run.json\n  objbench export RUN --format samples > samples.csv",
		func(ctx context.Context, st *results.Store, id string) error {
			sr, err := loadRun(ctx, st, id)
			if err != nil {
				return err
			}
			switch format {
			case "json":
				_, err = fmt.Fprintf(stdout, "%s\n", sr.run.Document)
				return err
			case "csv":
				if sr.doc == nil {
					return fmt.Errorf("run %s is a %s run: csv exports run results; use --format json", sr.run.ID, sr.run.Command)
				}
				return report.WriteCSV(stdout, sr.doc)
			case "samples":
				return exportSamples(ctx, st, sr, stdout)
			}
			return usagef("--format %q: use json, csv or samples", format)
		}, g)
	cmd.Flags().StringVar(&format, "format", "json", "json, csv or samples")
	return cmd
}

// exportSamples writes one CSV row per kept request.
func exportSamples(ctx context.Context, st *results.Store, sr *savedRun, w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"run_id", "step", "workload", "op", "size_bytes", "concurrency", "worker", "seq", "key", "start", "ttfb_ms", "total_ms"}
	for _, p := range nettrace.Phases() {
		head = append(head, p.String()+"_ms")
	}
	head = append(head, "status", "error_class", "error", "requests", "retries", "reconnects", "reused", "was_idle", "idle_ms", "protocol", "tls_version", "remote_addr", "bytes",
		"target", "provider", "region", "labels")
	if err := cw.Write(head); err != nil {
		return err
	}
	steps := map[int]results.Step{}
	for _, s := range sr.steps {
		steps[s.Index] = s
	}
	f := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }
	region := ""
	if sr.doc != nil {
		region = sr.doc.Target.Region
	}
	labels := formatLabels(sr.run.Labels)
	err := st.Samples(ctx, sr.run.ID, func(row results.SampleRow) error {
		s, stp := row.Sample, steps[row.Step]
		rec := []string{sr.run.ID, strconv.Itoa(row.Step), stp.Workload, s.Op, strconv.FormatInt(s.Size, 10), strconv.Itoa(stp.Concurrency),
			strconv.Itoa(s.Worker), strconv.Itoa(s.Seq), s.Key, s.Start.UTC().Format(time.RFC3339Nano), f(s.TTFB()), f(s.Total())}
		for _, d := range s.Phases {
			rec = append(rec, f(d))
		}
		rec = append(rec, strconv.Itoa(s.Status), s.ErrClass, s.Err, strconv.Itoa(s.Requests), strconv.Itoa(s.Retries), strconv.Itoa(s.Reconnects),
			strconv.FormatBool(s.Reused), strconv.FormatBool(s.WasIdle), f(s.IdleTime), s.Proto, s.TLSVersion, s.RemoteAddr, strconv.FormatInt(s.Bytes, 10),
			sr.run.TargetURL, sr.run.Provider, region, labels)
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
