package cli

import (
	"github.com/objbench/objbench/internal/analysis"

	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime/debug"
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
			listingGC()
			var runs []results.Listed
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

// listingGC stops the collector until the heap nears 512 MiB: `runs` is a
// short process that allocates a little per row and frees nothing, so
// collections cost it a third of its time over 10,000 runs
// (bench/runs-query.sh) and reclaim nothing worth having. GOMEMLIMIT,
// when the user set one lower, still wins.
func listingGC() {
	const limit = 512 << 20
	if debug.SetMemoryLimit(-1) > limit {
		debug.SetMemoryLimit(limit)
	}
	debug.SetGCPercent(-1)
}

// writeRunsJSON prints {"runs": [...]}, one run per line, each as
// json.Marshal would write {run_id, started_at, command, target, labels,
// duration_s, interrupted}, but appended by hand: for thousands of runs
// reflection was most of the time. The labels are written as stored.
func writeRunsJSON(w *bufio.Writer, runs []results.Listed) error {
	w.WriteString("{\n  \"runs\": [")
	var b []byte
	for i, r := range runs {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {\"run_id\":"...)
		b = appendJSONString(b, r.ID)
		b = append(b, `,"started_at":`...)
		b = appendJSONString(b, r.StartedAt.UTC().Format(time.RFC3339))
		b = append(b, `,"command":`...)
		b = appendJSONString(b, r.Command)
		b = append(b, `,"target":`...)
		b = appendJSONString(b, r.TargetURL)
		b = append(b, `,"labels":`...)
		b = appendLabelsJSON(b, r)
		b = append(b, `,"duration_s":`...)
		var err error
		if b, err = appendJSONFloat(b, r.DurationS); err != nil {
			return err
		}
		if r.Interrupted {
			b = append(b, `,"interrupted":true`...)
		}
		b = append(b, '}')
		w.Write(b)
	}
	if len(runs) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString("]\n}\n")
	return nil
}

// appendJSONString appends s as encoding/json quotes it: plain printable
// ASCII as it is, anything else through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64 in the range
// a duration has ('f' format); other values go through encoding/json.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	q, err := json.Marshal(f)
	return append(b, q...), err
}

// appendLabelsJSON appends the run's labels as stored: json.Marshal
// wrote them from the map, so they are the bytes it would write now; an
// empty map is {} (never null).
func appendLabelsJSON(b []byte, r results.Listed) []byte {
	if js := r.LabelsJSON; js != "" && js != "null" {
		return append(b, js...)
	}
	return append(b, "{}"...)
}

// labelsText is the labels as k=v,k=v (keys sorted). Stored without
// escapes, the JSON object {"k":"v","k2":"v2"} has quotes only around
// its strings, so two replacements turn it into the text with no map.
func labelsText(r results.Listed) string {
	js := r.LabelsJSON
	switch {
	case js == "" || js == "null" || js == "{}":
		return ""
	case strings.HasPrefix(js, `{"`) && strings.HasSuffix(js, `"}`) && strings.IndexByte(js, '\\') < 0:
		return labelsReplacer.Replace(js[2 : len(js)-2])
	}
	return analysis.FormatLabels(r.Labels())
}

var labelsReplacer = strings.NewReplacer(`":"`, "=", `","`, ",")

// writeRunsTable prints the runs in aligned columns (two passes: widths,
// then rows), as tabwriter would but without its per-cell work.
func writeRunsTable(w *bufio.Writer, runs []results.Listed) {
	header := [6]string{"RUN", "STARTED", "COMMAND", "TARGET", "DURATION", "LABELS"}
	const started = "2006-01-02 15:04"
	labels, durations := make([]string, len(runs)), make([]string, len(runs))
	var width [6]int
	for i, h := range header {
		width[i] = len(h)
	}
	width[1] = max(width[1], len(started))
	for i, r := range runs {
		labels[i], durations[i] = labelsText(r), durationText(r)
		width[0] = max(width[0], utf8.RuneCountInString(r.ID))
		width[2] = max(width[2], utf8.RuneCountInString(r.Command))
		width[3] = max(width[3], utf8.RuneCountInString(r.TargetURL))
		width[4] = max(width[4], len(durations[i]))
	}
	var b []byte
	cell := func(i int, s []byte) {
		b = append(b, s...)
		if i < len(width)-1 {
			for n := width[i] - utf8.RuneCount(s) + 2; n > 0; n-- {
				b = append(b, ' ')
			}
		}
	}
	for i, h := range header {
		cell(i, []byte(h))
	}
	w.Write(append(b, '\n'))
	var tmp []byte
	for i, r := range runs {
		b = b[:0]
		cell(0, []byte(r.ID))
		cell(1, r.StartedAt.Local().AppendFormat(tmp[:0], started))
		cell(2, []byte(r.Command))
		cell(3, []byte(r.TargetURL))
		cell(4, []byte(durations[i]))
		cell(5, []byte(labels[i]))
		w.Write(append(b, '\n'))
	}
}

// durationText is a run's duration as the table shows it.
func durationText(r results.Listed) string {
	d := strconv.FormatFloat(r.DurationS, 'f', 1, 64) + "s"
	if r.Interrupted {
		d += " (interrupted)"
	}
	return d
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
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
			sr, err := analysis.Load(ctx, st, id)
			if err != nil {
				return err
			}
			switch {
			case jsonOut:
				_, err = fmt.Fprintf(stdout, "%s\n", sr.Meta.Document)
				return err
			case sr.Doc != nil:
				return report.WriteText(stdout, sr.Doc)
			case sr.Strategies != nil:
				return report.WriteStrategiesText(stdout, sr.Strategies)
			case sr.Startup != nil:
				return report.WriteStartupText(stdout, sr.Startup)
			}
			_, err = fmt.Fprintf(stdout, "%s\n", sr.Meta.Document)
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
			sr, err := analysis.Load(ctx, st, id)
			if err != nil {
				return err
			}
			switch format {
			case "json":
				_, err = fmt.Fprintf(stdout, "%s\n", sr.Meta.Document)
				return err
			case "csv":
				if sr.Doc == nil {
					return fmt.Errorf("run %s is a %s run: csv exports run results; use --format json", sr.Meta.ID, sr.Meta.Command)
				}
				return report.WriteCSV(stdout, sr.Doc)
			case "samples":
				return exportSamples(ctx, st, sr, stdout)
			}
			return usagef("--format %q: use json, csv or samples", format)
		}, g)
	cmd.Flags().StringVar(&format, "format", "json", "json, csv or samples")
	return cmd
}

// exportSamples writes one CSV row per kept request.
func exportSamples(ctx context.Context, st *results.Store, sr *analysis.Run, w io.Writer) error {
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
	for _, s := range sr.Steps {
		steps[s.Index] = s
	}
	f := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }
	region := ""
	if sr.Doc != nil {
		region = sr.Doc.Target.Region
	}
	labels := analysis.FormatLabels(sr.Meta.Labels)
	err := st.Samples(ctx, sr.Meta.ID, func(row results.SampleRow) error {
		s, stp := row.Sample, steps[row.Step]
		rec := []string{sr.Meta.ID, strconv.Itoa(row.Step), stp.Workload, s.Op, strconv.FormatInt(s.Size, 10), strconv.Itoa(stp.Concurrency),
			strconv.Itoa(s.Worker), strconv.Itoa(s.Seq), s.Key, s.Start.UTC().Format(time.RFC3339Nano), f(s.TTFB()), f(s.Total())}
		for _, d := range s.Phases {
			rec = append(rec, f(d))
		}
		rec = append(rec, strconv.Itoa(s.Status), s.ErrClass, s.Err, strconv.Itoa(s.Requests), strconv.Itoa(s.Retries), strconv.Itoa(s.Reconnects),
			strconv.FormatBool(s.Reused), strconv.FormatBool(s.WasIdle), f(s.IdleTime), s.Proto, s.TLSVersion, s.RemoteAddr, strconv.FormatInt(s.Bytes, 10),
			sr.Meta.TargetURL, sr.Meta.Provider, region, labels)
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
