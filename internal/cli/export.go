package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/report/export"
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
			return usageIs(export.WriteExport(stdout, sr, format, func(fn func(results.SampleRow) error) error {
				return st.Samples(ctx, sr.Meta.ID, fn)
			}), export.ErrFormat)
		}, g)
	cmd.Flags().StringVar(&format, "format", "json", "json, csv, samples, series (results per interval, CSV) or hdrlog (HdrHistogram interval log)")
	return cmd
}
