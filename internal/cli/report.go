package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/report/html"
	"github.com/objbench/objbench/internal/results"
)

func newReportCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var output, title string
	cmd := &cobra.Command{
		Use:     "report [RUN...]",
		Short:   "Write saved runs as one self-contained HTML page with plots",
		Long:    longHelp("report"),
		Example: examples("report"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var srs []*analysis.Run
			if err := g.withStore(cmd.Context(), func(st *results.Store) (err error) {
				srs, err = analysis.LoadAll(cmd.Context(), st, args)
				return err
			}); err != nil {
				return err
			}
			in := html.PageInput(srs, title)
			if output == "-" {
				return html.WriteHTML(stdout, in)
			}
			if err := html.WriteHTMLFile(output, in); err != nil {
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
