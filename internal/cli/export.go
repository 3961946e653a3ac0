package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
)

func newExportCmd(g *globals, stdout io.Writer) *cobra.Command {
	var format string
	cmd := oneRunCmd("export RUN", "Export a saved run as JSON, CSV, or its raw samples as CSV",
		`export writes a saved run: json (the objbench/v1 document), csv (one row per step), or
samples (one row per kept request with every phase column, in milliseconds; pandas reads it
with pd.read_csv), series (one row per step, op and interval: ops/s, bytes/s, p50/p90/p99,
errors by class, late and dropped arrivals, in-flight, new connections), or hdrlog (the
interval histograms of total latency in the HdrHistogram interval log format).`,
		"  objbench export RUN --format json > run.json\n  objbench export RUN --format samples > samples.csv\n  objbench export RUN --format series > series.csv\n  objbench export RUN --format hdrlog > run.hlog",
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
			case "series", "hdrlog":
				return report.WriteSeries(stdout, sr, format)
			case "samples":
				return report.WriteSamplesCSV(stdout, sr, func(fn func(results.SampleRow) error) error {
					return st.Samples(ctx, sr.Meta.ID, fn)
				})
			}
			return usagef("--format %q: use json, csv, samples, series or hdrlog", format)
		}, g)
	cmd.Flags().StringVar(&format, "format", "json", "json, csv, samples, series (results per interval, CSV) or hdrlog (HdrHistogram interval log)")
	return cmd
}
