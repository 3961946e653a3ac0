package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/report/export"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/results"
)

func newShowCmd(g *globals, stdout io.Writer) *cobra.Command {
	var jsonOut bool
	var vf viewFlags
	cmd := oneRunCmd("show RUN", "Print a saved run's tables again",
		func(ctx context.Context, st *results.Store, id string) error {
			prices, err := vf.loadPrices()
			if err != nil {
				return err
			}
			sr, err := analysis.Load(ctx, st, id)
			if err != nil {
				return err
			}
			if jsonOut {
				return export.WriteExport(stdout, sr, "json", nil)
			}
			analysis.AnnotateSaved(sr, prices) // runs saved before findings get them; --prices reprices
			return terminal.WriteSaved(stdout, sr, vf.detail)
		}, g)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the stored JSON document")
	vf.register(cmd.Flags(), true)
	return cmd
}
