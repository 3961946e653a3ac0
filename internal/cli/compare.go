package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
)

func newCompareCmd(g *globals, stdout io.Writer) *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B [RUN...]",
		Short: "Compare saved runs step by step, with confidence intervals and a verdict",
		Long: `compare matches the steps of RUN_A with those of each other run (same workload, op,
size, concurrency and strategy) and prints p50/p90/p99 total latency and throughput of
each, the change of p50 and p99 with a bootstrap 95% confidence interval (from the raw
samples where they were kept, else from the stored histograms), a Mann-Whitney test where
samples exist, and a verdict: faster, slower, or no significant difference.

When the runs measured different targets with a size sweep (the throughput workload),
it also fits total = TTFB + size/throughput to each and prints the size above which one
finishes a transfer sooner (seed 001: "GCS finishes sooner than Azure above ~1 MB").`,
		Example: `  objbench compare 20261122T2130 20261122T2145
  objbench compare $(objbench runs --label env=a --limit 1 --json | jq -r '.runs[0].run_id') RUN_B --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef("compare takes at least two RUNs, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var comps []analysis.Comparison
			err := g.withStore(ctx, func(st *results.Store) (err error) {
				comps, err = analysis.CompareAll(ctx, st, args)
				return err
			})
			if err != nil {
				return err
			}
			if jsonOut {
				return report.WriteComparisonsJSON(stdout, comps)
			}
			for _, c := range comps {
				report.WriteComparison(stdout, c)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the comparisons as JSON")
	return cmd
}
