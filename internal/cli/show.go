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

func newShowCmd(g *globals, stdout io.Writer) *cobra.Command {
	var jsonOut bool
	var vf viewFlags
	cmd := oneRunCmd("show RUN", "Print a saved run's tables again", "show prints the tables of a saved run, read back from the results database.",
		"  objbench show 20261122T213000-ab12cd\n  objbench show 20261122T2130 --json",
		func(ctx context.Context, st *results.Store, id string) error {
			prices, err := vf.loadPrices()
			if err != nil {
				return err
			}
			sr, err := analysis.Load(ctx, st, id)
			if err != nil {
				return err
			}
			switch {
			case jsonOut:
				_, err = fmt.Fprintf(stdout, "%s\n", sr.Meta.Document)
				return err
			case sr.Doc != nil:
				analysis.Annotate(sr.Doc, prices) // runs saved before findings get them; --prices reprices
				return vf.text(sr.Doc)(stdout)
			case sr.Strategies != nil:
				analysis.AnnotateStrategies(sr.Strategies, prices)
				return report.WriteStrategiesText(stdout, sr.Strategies)
			case sr.Startup != nil:
				return report.WriteStartupText(stdout, sr.Startup)
			case sr.Explain != nil:
				return report.WriteExplainText(stdout, sr.Explain)
			}
			_, err = fmt.Fprintf(stdout, "%s\n", sr.Meta.Document)
			return err
		}, g)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the stored JSON document")
	vf.register(cmd.Flags(), true)
	return cmd
}
