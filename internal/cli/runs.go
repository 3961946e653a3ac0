package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/usage"
)

func newRunsCmd(g *globals, stdout io.Writer) *cobra.Command {
	var target, command, since, until string
	var labels []string
	var limit int
	var jsonOut bool
	cmd := &cobra.Command{
		Use:     "runs",
		Short:   "List saved runs, newest first",
		Long:    longHelp("runs"),
		Example: examples("runs"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := results.NewFilter(target, command, since, until, labels, limit)
			if err != nil {
				return usage.Wrap(err)
			}
			results.ListingGC()
			var runs []results.Listed
			if err := g.withStore(cmd.Context(), func(st *results.Store) (err error) {
				if st.RecoverErr != nil { // the journals of killed runs: tried again at the next command
					fmt.Fprintf(cmd.ErrOrStderr(), "objbench: warning: killed runs not recovered yet: %s\n", oneLine(st.RecoverErr.Error()))
				}
				runs, err = st.List(cmd.Context(), f)
				return err
			}); err != nil {
				return err
			}
			return terminal.WriteRuns(stdout, runs, jsonOut)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&target, "target", "", "only runs whose target URL contains this")
	fl.StringVar(&command, "command", "", "only runs of this command (run, strategies, ...)")
	fl.StringArrayVar(&labels, "label", nil, "only runs with this label, k=v (repeatable: all must match)")
	fl.StringVar(&since, "since", "", "only runs started on or after this date (2006-01-02 or RFC 3339)")
	fl.StringVar(&until, "until", "", "only runs started before this date")
	fl.IntVar(&limit, "limit", 0, "at most this many runs (0: all)")
	fl.BoolVar(&jsonOut, "json", false, `print {"schema": "objbench/v1", "runs": [...]}: each run's run_id, started_at, command, target, labels, duration_s`)
	return cmd
}
