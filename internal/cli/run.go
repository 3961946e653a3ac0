package cli

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/session"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/threshold"
	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

func newRunCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	d := load.Defaults()
	cmd := &cobra.Command{
		Use:     "run [TARGET]",
		Short:   "Measure TTFB, latency, throughput and phases on a bucket (or the embedded lab)",
		Long:    longHelp("run"),
		Example: examples("run"),
		Args:    atMostOneTarget("run"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd.Context(), g, targetArg(args), &f, cmd.Flags(), stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.targetFlags.register(fl)
	f.saveFlags.register(fl)
	fl.StringVar(&f.conn, "conn", string(nettrace.Pooled), "connection strategy: pooled (keep-alive), fresh (new connection per request), h2 (HTTP/2, h2c on plain HTTP)")
	fl.BoolVar(&f.expectContinue, "expect-continue", false, "send 'Expect: 100-continue' on uploads and hold the body for '100 Continue' (one round trip, wait100; without it the SDK's own default applies, see expect sent/waited)")
	fl.StringVar(&f.Workloads, "workload", strings.Join(d.Workloads, ","), "workloads to run: latency, throughput, concurrency (or all), mixed, or ranges (a size sweep of ranged downloads at each of --sizes: part sizes × parts at a time, --sweep-part-sizes and --sweep-parallel, and a finding naming the fastest)")
	fl.IntVar(&f.Objects, "objects", d.PoolObjects, "latency: objects in the GET pool")
	fl.StringVar(&f.ObjectSize, "object-size", units.FormatSize(d.PoolSize), "latency: size of each pool object")
	fl.IntVar(&f.Gets, "gets", d.Gets, "latency: GETs of random pool keys")
	fl.IntVar(&f.LatencyConcurrency, "latency-concurrency", d.LatencyConcurrency, "latency: workers, each with a cold client of its own")
	fl.StringVar(&f.OpSizes, "op-sizes", units.FormatSizes(d.OpSizes), "latency: sizes for the PUT, HEAD and DELETE steps")
	fl.IntVar(&f.OpCount, "op-count", d.OpCount, "latency: PUTs, HEADs and DELETEs at each op size")
	fl.StringVar(&f.Sizes, "sizes", units.FormatSizes(d.Sizes), "throughput: object sizes (KiB/MiB binary, KB/MB decimal)")
	fl.IntVar(&f.SizeCount, "size-count", d.SizeCount, "throughput: uploads and downloads per size")
	fl.StringVar(&f.SweepPartSizes, "sweep-part-sizes", "", "ranges: the part sizes the sweep tries (default 4MiB,8MiB,16MiB,32MiB; each below the object's size)")
	fl.StringVar(&f.SweepParallel, "sweep-parallel", "", "ranges: the parts in flight the sweep tries with each part size (default 4,8,16)")
	fl.StringVar(&f.Levels, "concurrency", units.FormatInts(d.Levels), "concurrency: levels (parallel workers)")
	fl.StringVar(&f.LevelSize, "concurrency-size", units.FormatSize(d.LevelSize), "concurrency: object size")
	fl.IntVar(&f.Requests, "requests", 0, "operations per step, replacing every per-step count above (0: their defaults)")
	fl.DurationVar(&f.Duration, "duration", d.Duration, "bound on each step's wall time (whichever of count and duration comes first)")
	fl.IntVar(&f.MaxAttempts, "max-attempts", 1, "attempts per operation (1: no SDK retries; retries are counted apart)")
	fl.IntVar(&f.Prefixes, "prefixes", 1, "spread the objects' keys over N prefixes (<prefix>/p0/ to pN-1/, object i under p(i mod N)), as a store that limits requests per prefix (S3's 503 SlowDown) needs; a --rate ramp's rows name the prefix most throttled")
	nameFields(fl, &f.RunSettings)
	fl.StringVar(&f.download, "download", load.DownloadStream, "how a GET reads an object: stream (one request) or ranged (byte ranges of --part-size, default 8MiB, --part-concurrency at a time, default 16; a result per object); either way checked as it arrives")
	f.out.register(fl, "print the objbench/v1 JSON document instead of tables", "no progress bar")
	fl.Var(f.out.th.For(threshold.Run), "threshold", threshold.Usage)
	f.viewFlags.register(fl, true)
	f.open.register(fl)
	f.shards.register(fl)
	fl.BoolVar(&f.shards.journal.Off, "no-journal", false, "do not journal the run as it goes (a run killed then loses everything)")
	_ = fl.MarkHidden("no-journal")
	return cmd
}

func runRun(ctx context.Context, g *globals, rawTarget string, f *runFlags, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	opts, err := f.RunSettings.Options()
	if err != nil {
		return usage.Wrap(err)
	}
	download, err := load.ParseDownload(f.download)
	if err != nil {
		return usage.Wrap(err)
	}
	if err := f.open.Apply(&opts, f.Sizes, units.FormatSizes(load.Defaults().Sizes)); err != nil {
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
	strategy, err := nettrace.ParseStrategy(f.conn)
	if err != nil {
		return usage.Errorf("--conn: %w", err)
	}
	spec, runID, err := f.shards.spec()
	if err != nil {
		return err
	}
	if err := f.shards.journal.Check(); err != nil {
		return usage.Wrap(err)
	}
	spec.Take(&opts, &f.open.OpenSettings, &f.Prefix) // rates, counts and concurrency are totals
	started := time.Now()
	env, err := openTarget(ctx, rawTarget, &f.targetFlags, fs, labDefaults{}, runID)
	if err != nil {
		return err
	}
	defer env.Close()
	sr, err := f.shards.begin(ctx, spec, env)
	if err != nil {
		return err
	}
	defer sr.Close()
	options := f.asMap(strategy, env.LabInfo != nil)
	f.open.AddTo(options)
	f.shards.addTo(options, spec)
	progress := terminal.NewProgress(stderr, f.out.statusOn(stdout))
	live := terminal.NewLiveStatus(stderr, !f.out.quiet && !progress.On())
	progress.Suffix = live.LastLine
	out, err := session.Run(ctx, session.Config{
		Env: env, Shard: sr, NewClient: env.Factory(strategy, f.expectContinue, env.Options.Upload, f.MaxAttempts),
		RunID: runID, Started: started, Strategy: string(strategy), Options: options, Labels: labels,
		Opts: opts, Open: &f.open.OpenSettings, Timeout: f.Timeout,
		Download: download, KeepSamples: f.KeepSamples, DB: g.db, Journal: f.shards.journal.On(f.NoSave), ResultsEvery: f.shards.journal.ResultsEvery,
		Prices: prices, Stderr: stderr,
		OnStep: progress.Step,
		OnProgress: func(st *load.Step, done int64, elapsed time.Duration) {
			progress.Update(stepStatus(st), done, elapsed)
		},
		OnInterval: func(st *load.Step, ivs []stats.Interval) { live.Interval(stepStatus(st), ivs) },
		OnDone:     progress.Done,
		Notify:     notify(stderr),
	})
	if err != nil {
		return err
	}
	defer out.Close() // the journal holds the run until it is saved
	return finish(g, &f.saveFlags, &f.out, out.Doc, f.viewFlags.text(out.Doc), out.Histograms, out.Kept, out.Err, stdout, stderr)
}

// stepStatus is what the progress line and live status show of st.
func stepStatus(st *load.Step) terminal.StepStatus {
	return terminal.StepStatus{Workload: st.Workload, Name: st.Name(), Requests: st.Requests, Duration: st.Duration, Paced: st.Paced()}
}
