package cli

import (
	"bufio"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
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
				return usageError{err}
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
				if err := report.WriteRunsJSON(out, runs); err != nil {
					return err
				}
			case len(runs) == 0:
				fmt.Fprintln(out, "no saved runs match")
			default:
				report.WriteRunsTable(out, runs)
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
