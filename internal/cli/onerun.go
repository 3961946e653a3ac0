package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/results"
)

// oneRunCmd is a command of one saved RUN, run with the results database open.
func oneRunCmd(use, short, long, example string, run func(ctx context.Context, st *results.Store, id string) error, g *globals) *cobra.Command {
	return &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("%s takes one RUN (an ID or a unique prefix from 'objbench runs')", strings.Fields(use)[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd.Context(), func(st *results.Store) error { return run(cmd.Context(), st, args[0]) })
		},
	}
}
