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
