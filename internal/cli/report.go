package cli

import (
	"github.com/objbench/objbench/internal/analysis"

	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/report"
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
			srs, err := analysis.LoadAll(ctx, st, args)
			if err != nil {
				return err
			}
			in := report.PageInput(srs, title)
			if output == "-" {
				return report.WriteHTML(stdout, in)
			}
			if err := report.WriteHTMLFile(output, in); err != nil {
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
