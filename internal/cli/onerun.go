package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/usage"
)

// oneRunCmd is a command of one saved RUN, run with the results database
// open; its help is help/NAME.txt.
func oneRunCmd(use, short string, run func(ctx context.Context, st *results.Store, id string) error, g *globals) *cobra.Command {
	name := strings.Fields(use)[0]
	return &cobra.Command{
		Use: use, Short: short, Long: longHelp(name), Example: examples(name),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage.Errorf("%s takes one RUN (an ID or a unique prefix from 'objbench runs')", strings.Fields(use)[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd.Context(), func(st *results.Store) error { return run(cmd.Context(), st, args[0]) })
		},
	}
}
