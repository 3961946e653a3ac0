package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/session"
	"github.com/objbench/objbench/internal/threshold"
	"github.com/objbench/objbench/internal/usage"
)

type strategiesFlags struct {
	targetFlags
	saveFlags
	viewFlags
	load.StrategySettings
	download string
	out      outFlags
	shards   shardFlags
}

func newStrategiesCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f strategiesFlags
	cmd := &cobra.Command{
		Use:     "strategies [TARGET]",
		Short:   "What connection reuse, parallelism, HTTP/2 and 100-continue are worth, in round trips",
		Long:    longHelp("strategies"),
		Example: examples("strategies"),
		Args:    atMostOneTarget("strategies"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStrategies(cmd.Context(), g, targetArg(args), &f, cmd.Flags(), stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.targetFlags.register(fl)
	fl.Lookup("lab-api").DefValue = "gcs" // the provider the default sizes were first measured on
	f.saveFlags.register(fl)
	fl.IntVar(&f.Objects, "objects", 50, "objects per strategy")
	fl.StringVar(&f.Sizes, "size", "0,7KiB", "object sizes, comma-separated (default: empty and 7 KiB objects)")
	fl.IntVar(&f.Parallel, "parallel", 16, "requests in flight for the parallel strategy")
	fl.BoolVar(&f.ExpectContinue, "expect-continue", false, "send 'Expect: 100-continue' on uploads and hold the body for '100 Continue' (one more round trip each)")
	fl.StringVar(&f.Ops, "ops", "put,get", "what to measure: put, get or put,get (downloads read what the uploads wrote, or --keys-from)")
	fl.StringVar(&f.KeysFrom, "keys-from", "", "download these keys (one per line) instead of the uploaded objects")
	fl.StringVar(&f.download, "download", load.DownloadStream, "how each strategy's GET reads an object: stream (one request) or ranged (byte ranges of --part-size, default 8MiB, --part-concurrency at a time, default 16, checked as they arrive; not with --keys-from)")
	nameFields(fl, &f.StrategySettings)
	f.out.register(fl, `print {"schema": "objbench/v1", "strategies": [...]}`, "no progress line")
	fl.Var(f.out.th.For(threshold.Strategies), "threshold", threshold.Usage)
	f.viewFlags.register(fl, false)
	f.shards.registerPlace(fl)
	return cmd
}

func runStrategies(ctx context.Context, g *globals, rawTarget string, f *strategiesFlags, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	labels, err := f.saveFlags.check()
	if err != nil {
		return err
	}
	prices, err := f.viewFlags.loadPrices()
	if err != nil {
		return err
	}
	sizes, skipDownloads, err := f.StrategySettings.Check()
	if err != nil {
		return usage.Wrap(err)
	}
	download, err := load.ParseDownload(f.download)
	if err != nil {
		return usage.Wrap(err)
	}
	keys, err := load.ReadKeys(f.KeysFrom)
	if err != nil {
		return usageIs(err, load.ErrNoKeys)
	}
	spec, err := f.shards.place(&f.Prefix, false, &f.Objects, &f.Parallel)
	if err != nil {
		return err
	}
	keys, runID := spec.Pick(keys), spec.LocalIDOr(document.NewRunID)
	started := time.Now()
	env, err := openTarget(ctx, rawTarget, &f.targetFlags, fs, labDefaults{API: "gcs", Profile: "cross-region"}, runID)
	if err != nil {
		return err
	}
	defer env.Close()
	options := f.StrategySettings.AsMap()
	f.shards.addTo(options, spec)
	status := f.out.status(stdout, stderr)
	out, err := session.Strategies(ctx, session.StrategiesConfig{
		Env: env, RunID: runID, Started: started, Options: options, Labels: labels,
		Expect: f.ExpectContinue, Timeout: f.Timeout, Objects: f.Objects, Parallel: f.Parallel, Sizes: sizes,
		Keys: keys, SkipDownloads: skipDownloads, Download: download, Prices: prices,
		OnStrategy: func(op string, size int64, spec load.StrategySpec) {
			status.Strategy(op, f.Objects, size, spec.Name)
		},
		OnDone: status.Clear,
		Notify: notify(stderr),
	})
	if err != nil {
		return err
	}
	doc := out.Doc
	textOf := func(w io.Writer) error { return terminal.WriteStrategiesText(w, doc) }
	return finish(g, &f.saveFlags, &f.out, doc, textOf, nil, nil, out.Err, stdout, stderr)
}
