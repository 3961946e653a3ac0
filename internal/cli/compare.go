package cli

import (
	"cmp"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/calibrate"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/threshold"
	"github.com/objbench/objbench/internal/usage"
)

func newCompareCmd(g *globals, stdout io.Writer) *cobra.Command {
	var jsonOut bool
	var failIf threshold.FailIf
	cmd := &cobra.Command{
		Use:     "compare RUN_A RUN_B [RUN...]",
		Short:   "Compare saved runs step by step, with confidence intervals and a verdict",
		Long:    longHelp("compare"),
		Example: examples("compare"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usage.Errorf("compare takes at least two RUNs, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if rows, ok, err := calibrate.ComparePair(args); ok { // two lab profiles (no rows when err)
				return cmp.Or(err, terminal.WriteProfileRows(stdout, args[0], args[1], rows, false, jsonOut))
			}
			var comps []analysis.Comparison
			err := g.withStore(ctx, func(st *results.Store) (err error) {
				comps, err = analysis.CompareAll(ctx, st, args)
				return err
			})
			if err != nil {
				return err
			}
			return errors.Join(terminal.WriteComparisons(stdout, comps, jsonOut), failIf.Check(cmd.ErrOrStderr(), comps))
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the comparisons as JSON")
	cmd.Flags().Var(&failIf, "fail-if", threshold.FailIfUsage)
	return cmd
}
