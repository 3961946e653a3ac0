package cli

import (
	"github.com/objbench/objbench/internal/document"

	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
)

func newReportCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var output, title string
	cmd := &cobra.Command{
		Use:   "report [RUN...]",
		Short: "Write saved runs as one self-contained HTML page with plots",
		Long: `report writes saved runs as one HTML page that needs no network when opened:
TTFB and per-request throughput by quantile on a log scale (as in published
benchmarks), the phases of a GET for first and later requests, object size against
throughput with the crossover size between two targets and the fitted models,
aggregate throughput against concurrency, the strategies table, start-up time
distributions per environment, and every run's steps and settings.

RUN is a run ID or a unique prefix from 'objbench runs'; with none, the newest run.
Give several runs (two targets, two environments) to put them side by side.`,
		Example: `  objbench report -o report.html                     # the newest run
  objbench report 20261122T2130 20261122T2145 -o s3-vs-gcs.html
  objbench run --report report.html                  # right after a run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := g.open(ctx)
			if err != nil {
				return err
			}
			defer st.Close()
			if len(args) == 0 {
				runs, err := st.List(ctx, results.Filter{Limit: 1})
				if err != nil {
					return err
				}
				if len(runs) == 0 {
					return fmt.Errorf("no saved runs in the results database: run 'objbench run' first")
				}
				args = []string{runs[0].ID}
			}
			var srs []*savedRun
			seen := map[string]bool{}
			for _, id := range args {
				sr, err := loadRun(ctx, st, id)
				if err != nil {
					return err
				}
				if seen[sr.run.ID] {
					continue
				}
				seen[sr.run.ID] = true
				srs = append(srs, sr)
			}
			in := reportInput(srs, title)
			if output == "-" {
				return report.WriteHTML(stdout, in)
			}
			if err := writeReportFile(output, in); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s (%d run(s))\n", output, len(srs))
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "report.html", "the HTML file to write (- for standard output)")
	cmd.Flags().StringVar(&title, "title", "", "the page title (default: the runs' names)")
	return cmd
}

// reportInput turns saved runs into the page's input, with the crossover
// of every pair of runs against different targets.
func reportInput(srs []*savedRun, title string) report.HTMLInput {
	in := report.HTMLInput{Title: title, Generated: time.Now().UTC().Format(time.RFC3339)}
	for _, sr := range srs {
		in.Runs = append(in.Runs, htmlRun(sr))
	}
	for i := range srs {
		for j := i + 1; j < len(srs); j++ {
			in.Crossovers = append(in.Crossovers, crossovers(srs[i], srs[j])...)
		}
	}
	if in.Title == "" {
		in.Title = "objbench report"
		if len(in.Runs) == 1 {
			in.Title += ": " + in.Runs[0].Label
		}
	}
	return in
}

// htmlRun is one saved run for the page: its document, its settings and
// its steps' quantiles read from the stored histograms.
func htmlRun(sr *savedRun) report.HTMLRun {
	r := sr.run
	hr := report.HTMLRun{ID: r.ID, Label: runLabel(sr), Doc: sr.doc, Strategies: sr.strategies, Startup: sr.startup}
	meta := map[string]string{
		"command": r.Command, "started": r.StartedAt.UTC().Format(time.RFC3339),
		"duration": strconv.FormatFloat(r.DurationS, 'f', 1, 64) + " s", "host": r.Host,
	}
	if r.TargetURL != "" {
		meta["target"] = r.TargetURL
	}
	if r.Provider != "" {
		meta["provider"] = r.Provider
	}
	if r.Endpoint != "" {
		meta["endpoint"] = r.Endpoint
	}
	for k, v := range r.Labels {
		meta["label "+k] = v
	}
	var opts map[string]string
	var client document.ClientInfo
	var lab *document.LabInfo
	switch {
	case sr.doc != nil:
		opts, client, lab = sr.doc.Options, sr.doc.Client, sr.doc.Lab
		if sr.doc.Target.Region != "" {
			meta["region"] = sr.doc.Target.Region
		}
	case sr.strategies != nil:
		opts, client, lab = sr.strategies.Options, sr.strategies.Client, sr.strategies.Lab
	case sr.startup != nil:
		opts, client = sr.startup.Options, sr.startup.Client
		meta["runtime"] = sr.startup.Runtime + " " + sr.startup.RuntimeVersion
		if sr.startup.EnvLabel != "" {
			meta["environment"] = sr.startup.EnvLabel
		}
	}
	maps.Copy(meta, prefixed("option ", opts))
	if client.Version != "" {
		meta["objbench"], meta["go"], meta["os"], meta["cpus"] = client.Version, client.Go, client.OS, strconv.Itoa(client.CPUs)
	}
	if lab != nil {
		meta["lab"] = fmt.Sprintf("%s API, profile %s, RTT %g ms, jitter %g ms, bandwidth %s, TLS %t",
			lab.API, lab.Profile, lab.RTTms, lab.JitterMs, orNone(lab.Bandwidth), lab.TLS)
	}
	hr.Meta = meta
	if sr.doc != nil {
		hr.Quantiles = map[int]report.StepQuantiles{}
		for _, s := range sr.steps {
			q, ok := stepQuantiles(s)
			if ok && s.Index < len(sr.doc.Results) {
				hr.Quantiles[s.Index] = q
			}
		}
	}
	return hr
}

func prefixed(p string, m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[p+k] = v
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "unlimited"
	}
	return s
}

// stepQuantiles reads a step's stored TTFB and total histograms.
func stepQuantiles(s results.Step) (report.StepQuantiles, bool) {
	var q report.StepQuantiles
	for name, dst := range map[string]*[]float64{"ttfb": &q.TTFBms, "total": &q.TotalMs} {
		b := s.Histograms[name]
		if len(b) == 0 {
			return q, false
		}
		h, err := stats.DecodeHistogram(b)
		if err != nil || h.Count() == 0 {
			return q, false
		}
		*dst = h.Quantiles(report.QuantileLevels)
	}
	return q, true
}

// writeReportFile writes the page next to path and renames it into place,
// so that an interrupted write never leaves half a report.
func writeReportFile(path string, in report.HTMLInput) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".objbench-report-*.html")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := report.WriteHTML(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// reportAfterRun writes --report FILE for a run that just finished, from
// memory, so it works with --no-save too.
func reportAfterRun(path string, sr *savedRun, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	if err := writeReportFile(path, reportInput([]*savedRun{sr}, "")); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", path)
	return nil
}

// checkReportPath fails before a run starts when --report cannot be written.
func checkReportPath(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("--report %s: folder %s does not exist", path, dir)
	}
	return nil
}
