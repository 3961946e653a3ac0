package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/merge"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

// mergeFlags are the flags of `objbench merge`.
type mergeFlags struct {
	saveFlags
	viewFlags
	expect                    int
	endpoint, region, profile string
	jsonOut                   bool
	output                    string
}

func newMergeCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge URL|FILE...",
		Short: "Merge the documents of a run's shards into one run, exactly",
		Long: `Merge makes one run from the documents that the shards of a run wrote with
'objbench run --shard I/N --results-to URL' (or an engine's task index): the
--results-to place (s3://, gs://, az:// or a directory), one run's folder in it
(URL/RUN-ID/), or shard document files.

Latency histograms are added bucket for bucket, so every quantile is that of
all the shards' requests together: never an average of the shards' p99s, which
is wrong whenever the shards differ. Throughput is given over the window in
which every shard was running (what they sustained together) and over the whole
window from the first start to the last end; one row per shard shows its rate,
p50, p99 and how late it started and ended (stragglers). A missing shard, or
one that was interrupted or failed and wrote what it had, is named with what
the result lacks.

The merged run is saved in the results database for show, compare, export and
report (the report draws the merged series over time).

Exit status: 0 merged; 1 the documents cannot be merged (different run ids or
schemas, a corrupted document) or, with --expect N, a shard is missing or
partial; 2 usage error.`,
		Example: `  objbench merge s3://results/bench/ --expect 4
  objbench merge ./results/run-42/
  objbench merge shard-0.json shard-1.json --json -o merged.json
  objbench merge gs://results/ --report merged.html`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge needs the --results-to URL, a directory or shard documents")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd.Context(), g, args, &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.saveFlags.register(fl)
	f.viewFlags.register(fl, true)
	fl.IntVar(&f.expect, "expect", 0, "the shard count the run must have: a missing or partial shard is then an error (exit 1)")
	fl.StringVar(&f.endpoint, "endpoint", "", "endpoint URL of the results bucket's server (S3-compatible, GCS emulator, Azurite)")
	fl.StringVar(&f.region, "region", "", "region of the results bucket (S3)")
	fl.StringVar(&f.profile, "profile", "", "AWS shared-config profile")
	fl.BoolVar(&f.jsonOut, "json", false, "print the merged objbench/v1 JSON document instead of tables")
	fl.StringVarP(&f.output, "output", "o", "", "write the output to FILE instead of standard output")
	return cmd
}

func runMerge(ctx context.Context, g *globals, args []string, f *mergeFlags, stdout, stderr io.Writer) error {
	if f.expect < 0 {
		return usagef("--expect must be a positive shard count, got %d", f.expect)
	}
	labels, err := f.saveFlags.check()
	if err != nil {
		return err
	}
	prices, err := f.viewFlags.loadPrices()
	if err != nil {
		return err
	}
	open := func(ctx context.Context, t storage.Target) (storage.Backend, error) {
		return providers.Open(ctx, t, storage.Options{Endpoint: f.endpoint, Region: f.region, Profile: f.profile, HTTPClient: &http.Client{}})
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(merge.MemoryLimit)
	}
	mg := merge.NewMerger(f.expect)
	if err := merge.ReadEach(ctx, args, open, mg.Add); err != nil {
		return err
	}
	m, err := mg.Result()
	if err != nil {
		return err
	}
	doc := m.Doc
	for k, v := range labels {
		if doc.Labels == nil {
			doc.Labels = map[string]string{}
		}
		doc.Labels[k] = v
	}
	analysis.Annotate(doc, prices)
	var incomplete error
	if f.expect > 0 && m.Incomplete() {
		incomplete = fmt.Errorf("run %s is incomplete: %d of %d shards merged, missing %v, partial %v",
			doc.RunID, len(doc.Merge.Merged), doc.Merge.Expected, doc.Merge.Missing, doc.Merge.Partial)
	}
	if err := finish(g, &f.saveFlags, f.output, f.jsonOut, doc, f.viewFlags.text(doc), m.Histograms, nil, nil, stdout, stderr); err != nil && !errors.Is(err, errInterrupted) && incomplete == nil {
		return err
	}
	return incomplete
}
