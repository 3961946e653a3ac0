package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/merge"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
	"github.com/objbench/objbench/internal/usage"
)

// mergeFlags are the flags of `objbench merge`.
type mergeFlags struct {
	saveFlags
	viewFlags
	// Expect is --expect, exported so that its flag is named by the field
	// merge.CheckExpect names.
	Expect                    int
	endpoint, region, profile string
	out                       outFlags
}

func newMergeCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:     "merge URL|FILE...",
		Short:   "Merge the documents of a run's shards into one run, exactly",
		Long:    longHelp("merge"),
		Example: examples("merge"),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage.Errorf("merge needs the --results-to URL, a directory or shard documents")
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
	fl.IntVar(&f.Expect, "expect", 0, "the shard count the run must have: a missing or partial shard is then an error (exit 1)")
	fl.StringVar(&f.endpoint, "endpoint", "", "endpoint URL of the results bucket's server (S3-compatible, GCS emulator, Azurite)")
	fl.StringVar(&f.region, "region", "", "region of the results bucket (S3)")
	fl.StringVar(&f.profile, "profile", "", "AWS shared-config profile")
	f.out.register(fl, "print the merged objbench/v1 JSON document instead of tables", "")
	nameFields(fl, &f)
	return cmd
}

func runMerge(ctx context.Context, g *globals, args []string, f *mergeFlags, stdout, stderr io.Writer) error {
	if err := merge.CheckExpect(f.Expect); err != nil {
		return usage.Wrap(err)
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
		return providers.Open(ctx, t, storage.Options{Endpoint: f.endpoint, Region: f.region, Profile: f.profile, HTTPClient: &http.Client{}, Log: verboseLog(ctx)})
	}
	merge.LimitMemory(os.Getenv)
	mg := merge.NewMerger(f.Expect)
	if err := merge.ReadEach(ctx, args, open, mg.Add); err != nil {
		return err
	}
	m, err := mg.Result()
	if err != nil {
		return err
	}
	doc := m.Doc
	m.Label(labels)
	analysis.Annotate(doc, prices)
	incomplete := m.Expected(f.Expect)
	if err := finish(g, &f.saveFlags, &f.out, doc, f.viewFlags.text(doc), m.Histograms, nil, nil, stdout, stderr); err != nil && !errors.Is(err, errInterrupted) && incomplete == nil {
		return err
	}
	return incomplete
}
