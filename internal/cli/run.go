package cli

import (
	"github.com/objbench/objbench/internal/document"

	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/units"
)

func newRunCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	d := load.Defaults()
	cmd := &cobra.Command{
		Use:   "run [TARGET]",
		Short: "Measure TTFB, latency, throughput and phases on a bucket (or the embedded lab)",
		Long: `Run measures what a program gets from object storage: time to first byte and total
latency percentiles, per-request throughput, aggregate throughput under concurrency,
and where the time goes, phase by phase (dns, connect, tls, send, wait100, wait, recv),
split into each worker's first request (cold: a new connection) and the later ones.

It prints a summary first (one table per workload, a cold request against a warm one
phase by phase, ranked findings with what to change, and what the requests cost at
list prices, see --prices); --detail prints every table instead. --json has it all.

TARGET is s3://bucket[/prefix], gs://bucket[/prefix] or az://account/container[/prefix].
With no TARGET (or lab[:PROFILE]), objbench starts the embedded lab on 127.0.0.1 and
measures that: no account needed (--lab-api s3|gcs|azure, --rtt, --tls, --fault, ...).

Workloads (--workload, comma-separated; default all three, a quick suite):
  latency      a pool of --objects objects of --object-size, then --gets GETs of random
               pool keys; then PUT, HEAD and DELETE --op-count times at each --op-sizes
  throughput   single-stream uploads then downloads, --size-count of each --sizes
  concurrency  at each --concurrency level, 2 x level writes then reads of --concurrency-size
  mixed        --keys objects written first, then one step of operations drawn from
               --mix on them (sizes from --sizes, e.g. 4KiB:50,1MiB:40, popularity from
               --key-dist), reported as one result per op

Open loop: --rate R sends R operations per second whatever the service does (uniform
or poisson --arrivals; a ramp 100:2000:60s or steps 100,500 --step 30s), with up to
--max-inflight at once. Latency is then measured from each operation's intended start,
so a stall counts in full for every request it held back (free of coordinated
omission); the figure from the actual send is reported beside it (*_uncorrected_ms).
Arrivals that find no free worker start late and are counted (dropped past --max-late).
Every step also keeps its results per --interval (ops/s, p50, p99, errors, in-flight).

Shards: --shard I/N (or a job engine's task index: JOB_COMPLETION_INDEX,
CLOUD_RUN_TASK_INDEX, AWS_BATCH_JOB_ARRAY_INDEX) runs one part of a run that several
machines run together: its share of --rate, --requests, --gets and the concurrency,
keys under objbench/<run-id>/shard-I/, the measured window from --start-at (or
--start-in), and its document to --results-to for 'objbench merge'. A shard out of
range, an engine's index without a count, or a --results-to that cannot be written
(checked before any load) is a usage error.

Safety: objects are written only under <prefix>/objbench/<run-id>/ (or --prefix), and
only the objects this run wrote are deleted at the end. Ctrl-C stops the load, cleans
up and prints partial results; a second Ctrl-C exits at once.

Credentials come from each provider's standard chain. S3: environment
(AWS_ACCESS_KEY_ID, ...), shared config and credentials files (--profile or
AWS_PROFILE), instance metadata. GCS: Application Default Credentials (none for an
emulator: --endpoint or STORAGE_EMULATOR_HOST). Azure: AZURE_STORAGE_CONNECTION_STRING,
AZURE_STORAGE_KEY, or DefaultAzureCredential. They are never printed, logged or stored.

Exit status: 0 success, 1 failure, 2 usage error, 130 interrupted.`,
		Example: `  objbench run                                   # quick suite on the embedded lab
  objbench run --detail                          # every quantile and phase table
  objbench run --json -o result.json             # the objbench/v1 JSON document to a file
  objbench run s3://my-bucket --region us-west-2
  objbench run s3://my-bucket/bench --profile prod --workload latency --gets 200
  objbench run s3://bench --endpoint http://127.0.0.1:9000 --create-bucket
  objbench run s3://my-bucket --conn fresh       # a new connection per request
  objbench run s3://my-bucket --conn h2 --workload throughput --sizes 1MiB,8MiB
  objbench run s3://my-bucket --workload throughput --expect-continue
  objbench run s3://my-bucket --workload concurrency --concurrency 1,8,32 --concurrency-size 8MiB
  objbench run s3://my-bucket --requests 50 --duration 10s --timeout 5s
  objbench run gs://my-bucket --workload throughput --upload resumable
  objbench run az://myaccount/mycontainer --upload multipart --part-size 4MiB
  objbench run lab:cross-region --tls --lab-api gcs --conn fresh
  objbench run --workload mixed --mix get=70,put=20,list=5,head=3,delete=2 \
      --sizes 4KiB:50,1MiB:40,16MiB:10 --keys 1000 --key-dist zipf:1.1 --rate 500 --duration 60s
  objbench run --workload latency --gets 20000 --rate 100:2000:60s --arrivals poisson`,
		Args: atMostOneTarget("run"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd.Context(), g, targetArg(args), &f, cmd.Flags(), stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.targetFlags.register(fl)
	f.saveFlags.register(fl)
	fl.StringVar(&f.conn, "conn", string(nettrace.Pooled), "connection strategy: pooled (keep-alive), fresh (new connection per request), h2 (HTTP/2, h2c on plain HTTP)")
	fl.BoolVar(&f.expectContinue, "expect-continue", false, "send 'Expect: 100-continue' on uploads and hold the body for '100 Continue' (one round trip, wait100; without it the SDK's own default applies, see expect sent/waited)")
	fl.StringVar(&f.workloads, "workload", strings.Join(d.Workloads, ","), "workloads to run: latency, throughput, concurrency (or all)")
	fl.IntVar(&f.objects, "objects", d.PoolObjects, "latency: objects in the GET pool")
	fl.StringVar(&f.objectSize, "object-size", units.FormatSize(d.PoolSize), "latency: size of each pool object")
	fl.IntVar(&f.gets, "gets", d.Gets, "latency: GETs of random pool keys")
	fl.IntVar(&f.latencyConcurrency, "latency-concurrency", d.LatencyConcurrency, "latency: workers, each with a cold client of its own")
	fl.StringVar(&f.opSizes, "op-sizes", joinSizes(d.OpSizes), "latency: sizes for the PUT, HEAD and DELETE steps")
	fl.IntVar(&f.opCount, "op-count", d.OpCount, "latency: PUTs, HEADs and DELETEs at each op size")
	fl.StringVar(&f.sizes, "sizes", joinSizes(d.Sizes), "throughput: object sizes (KiB/MiB binary, KB/MB decimal)")
	fl.IntVar(&f.sizeCount, "size-count", d.SizeCount, "throughput: uploads and downloads per size")
	fl.StringVar(&f.levels, "concurrency", joinInts(d.Levels), "concurrency: levels (parallel workers)")
	fl.StringVar(&f.levelSize, "concurrency-size", units.FormatSize(d.LevelSize), "concurrency: object size")
	fl.IntVar(&f.requests, "requests", 0, "operations per step, replacing every per-step count above (0: their defaults)")
	fl.DurationVar(&f.duration, "duration", d.Duration, "bound on each step's wall time (whichever of count and duration comes first)")
	fl.IntVar(&f.maxAttempts, "max-attempts", 1, "attempts per operation (1: no SDK retries; retries are counted apart)")
	fl.BoolVar(&f.jsonOut, "json", false, "print the objbench/v1 JSON document instead of tables")
	fl.StringVarP(&f.output, "output", "o", "", "write the output to FILE instead of standard output")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar")
	f.viewFlags.register(fl, true)
	f.open.register(fl)
	f.shards.register(fl)
	return cmd
}

func runRun(ctx context.Context, g *globals, rawTarget string, f *runFlags, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	if err := f.open.apply(&opts, f.sizes, joinSizes(load.Defaults().Sizes)); err != nil {
		return err
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
		return usagef("--conn: %w", err)
	}
	spec, runID, err := f.shards.spec()
	if err != nil {
		return err
	}
	if spec.Active() { // rates, counts and concurrency are totals: this shard takes its share
		spec.Apply(&opts)
		f.open.profile = shard.ScaleRate(f.open.profile, spec.Count)
		f.prefix = spec.Prefix(f.prefix)
	}
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
	newClient := env.Factory(strategy, f.expectContinue, env.Options.Upload, f.maxAttempts)

	doc := &document.Document{Envelope: document.NewEnvelope("run", runID, started)}
	doc.Target, doc.Lab, doc.Options, doc.Labels = env.Info(), env.LabInfo, f.asMap(strategy), labels
	if env.LabInfo != nil && f.lab.faults != "" {
		doc.Options["fault"] = f.lab.faults // the findings set injected faults against errors seen
	}
	f.open.addTo(doc.Options)
	f.shards.addTo(doc.Options, spec)
	keeper := stats.NewReservoir(f.keep)
	if f.noSave {
		keeper = stats.NewReservoir(0)
	}
	var stepIdx atomic.Int64
	var hists []map[string][]byte
	progress := newProgress(stderr, !f.quiet && isTerminal(stdout))
	live := report.NewLiveStatus(stderr, !f.quiet && !progress.On())
	progress.Suffix = live.LastLine
	sess := &load.Session{
		Runner: &load.Runner{NewClient: newClient, Timeout: f.timeout, Progress: progress.update, Keep: keeper.Cap(),
			Interval: f.open.interval, OnInterval: live.Interval, Ready: sr.WaitStart},
		Setup:  env.Setup.Backend,
		Prefix: env.Prefix,
		Opts:   opts,
		Keep:   env.Keep,
		BeforeStep: func(i, n int, st *load.Step) {
			stepIdx.Store(int64(i - 1))
			progress.step(i, n)
		},
		AfterStep: func(res *load.StepResult) {
			sr.StepDone(res.Wall)
			r := document.FromSummary(res.Step.Workload, res.Step.Op, res.Step.Size,
				res.Step.Concurrency, string(strategy), res.Wall, res.Summary)
			f.open.openLoopInto(&r, res)
			report.WarnRateShort(stderr, &r)
			doc.Results = append(doc.Results, r)
			hists = append(hists, res.Histograms)
			for _, k := range res.Kept {
				keeper.Merge(k, int(stepIdx.Load()))
			}
			res.Kept = nil // merged: the workers' reservoirs can go
		},
	}
	_, runErr := sess.Run(ctx)
	progress.done()
	interrupted := ctx.Err() != nil
	if _, cerr := sess.Cleanup(2*time.Minute + f.timeout); cerr != nil {
		fmt.Fprintf(stderr, "objbench: warning: %s\n", oneLine(cerr.Error()))
	}
	doc.DurationS = time.Since(started).Seconds()
	doc.Interrupted = interrupted
	if werr := sr.Write(doc, hists, failure(runErr, interrupted)); werr != nil && runErr == nil {
		runErr = werr
	} else if werr != nil {
		fmt.Fprintf(stderr, "objbench: %s\n", oneLine(werr.Error()))
	}
	if sr != nil && sr.Late > 0 {
		fmt.Fprintf(stderr, "objbench: warning: this shard was ready %s after the start time: its window began late\n", sr.Late.Round(time.Millisecond))
	}
	if spec.Active() {
		doc.RunID = spec.LocalID() // saved apart from the merged run, which has the shared id
	}
	if runErr != nil && !interrupted {
		if len(doc.Results) == 0 {
			return runErr
		}
		fmt.Fprintf(stderr, "objbench: run stopped early: %s\n", oneLine(runErr.Error()))
	}
	kept, _ := keeper.Kept()
	analysis.Annotate(doc, prices)
	return finish(g, &f.saveFlags, f.output, f.jsonOut, doc, f.viewFlags.text(doc), hists, kept, runErr, stdout, stderr)
}

// failure is why a run stopped early ("" when it did not fail).
func failure(err error, interrupted bool) string {
	if err == nil || interrupted {
		return ""
	}
	return oneLine(err.Error())
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
