package cli

import (
	"github.com/objbench/objbench/internal/analysis"

	"github.com/objbench/objbench/internal/document"

	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

type strategiesFlags struct {
	targetFlags
	saveFlags
	viewFlags
	objects        int
	sizes          string
	parallel       int
	expectContinue bool
	keysFrom       string
	ops            string
	jsonOut        bool
	output         string
	quiet          bool
	shards         shardFlags
}

func newStrategiesCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f strategiesFlags
	cmd := &cobra.Command{
		Use:   "strategies [TARGET]",
		Short: "What connection reuse, parallelism, HTTP/2 and 100-continue are worth, in round trips",
		Long: `strategies uploads then downloads N objects five ways, each from a cold client, and
explains every difference by the phase and the round trips it came from:

  sdk-default        a new SDK client per object and the SDK's default upload path
                     (GCS: a resumable session, two requests), no connection reuse
  single-request     one request per object, a new connection each
  reused-connection  one request per object, sequential, one keep-alive connection
  parallel           --parallel requests in flight over an HTTP/1.1 pool
  http2              every object a concurrent stream over one HTTP/2 connection

The table gives wall time, objects/s, p50 and p99 per object, connections opened,
TLS handshakes, requests per object, the round trips per object spent in each phase
(round trip = the fastest TCP connect, or the lab's link), and the speed-up against
sdk-default; then one sentence naming the largest saving and where it came from, and
seed 000's table of a worker's first GET against its later ones.

With no TARGET it runs on the lab's GCS endpoint over the cross-region profile (80 ms
round trips), the setting of seed 003; any TARGET, lab[:PROFILE] or --lab-api works.`,
		Example: `  objbench strategies                                   # lab, GCS, cross-region, 0 B and 7 KiB
  objbench strategies --size 0 --tls                    # with TLS: three round trips per new connection
  objbench strategies lab:same-region --lab-api s3 --objects 200
  objbench strategies s3://my-bucket --size 64KiB --parallel 32
  objbench strategies gs://my-bucket --expect-continue
  objbench strategies s3://read-only --keys-from keys.txt   # downloads of objects you name`,
		Args: atMostOneTarget("strategies"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStrategies(cmd.Context(), g, targetArg(args), &f, cmd.Flags(), stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.targetFlags.register(fl)
	fl.Lookup("lab-api").DefValue = "gcs" // the provider seed 003 used
	f.saveFlags.register(fl)
	fl.IntVar(&f.objects, "objects", 50, "objects per strategy")
	fl.StringVar(&f.sizes, "size", "0,7KiB", "object sizes, comma-separated (seed 003: 50 empty and 75 small files)")
	fl.IntVar(&f.parallel, "parallel", 16, "requests in flight for the parallel strategy")
	fl.BoolVar(&f.expectContinue, "expect-continue", false, "send 'Expect: 100-continue' on uploads and hold the body for '100 Continue' (one more round trip each)")
	fl.StringVar(&f.ops, "ops", "put,get", "what to measure: put, get or put,get (downloads read what the uploads wrote, or --keys-from)")
	fl.StringVar(&f.keysFrom, "keys-from", "", "download these keys (one per line) instead of the uploaded objects")
	fl.BoolVar(&f.jsonOut, "json", false, `print {"schema": "objbench/v1", "strategies": [...]}`)
	fl.StringVarP(&f.output, "output", "o", "", "write the output to FILE instead of standard output")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress line")
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
	if f.objects <= 0 || f.parallel <= 0 {
		return usagef("--objects and --parallel must be positive")
	}
	sizes, err := units.ParseSizes(f.sizes)
	if err != nil {
		return usagef("--size: %w", err)
	}
	skipDownloads := false
	switch strings.ReplaceAll(f.ops, " ", "") {
	case "put,get", "get,put", "get":
	case "put":
		skipDownloads = true
	default:
		return usagef("--ops %q: use put, get or put,get", f.ops)
	}
	var keys []string
	if f.keysFrom != "" {
		if keys, err = readKeys(f.keysFrom); err != nil {
			return err
		}
	}
	spec, err := f.shards.place(&f.prefix, false, &f.objects, &f.parallel)
	if err != nil {
		return err
	}
	keys, runID := spec.Pick(keys), document.NewRunID()
	if spec.Active() {
		runID = spec.LocalID()
	}
	started := time.Now()
	env, err := openTarget(ctx, rawTarget, &f.targetFlags, fs, labDefaults{api: "gcs", profile: "cross-region"}, runID)
	if err != nil {
		return err
	}
	defer env.Close()
	if len(keys) > 0 {
		for i, k := range keys {
			keys[i] = env.Target.Prefix + k
		}
	}
	sdkUpload := storage.UploadAuto
	if env.Target.Scheme == "gs" {
		sdkUpload = storage.UploadResumable
	}
	specs := load.Strategies(sdkUpload, f.parallel)
	doc := &document.StrategiesDocument{Envelope: document.NewEnvelope("strategies", runID, started)}
	doc.Target, doc.Lab, doc.Labels = env.Info(), env.LabInfo, labels
	doc.Options = map[string]string{"objects": fmt.Sprint(f.objects), "size": f.sizes, "parallel": fmt.Sprint(f.parallel),
		"expect_continue": fmt.Sprint(f.expectContinue), "ops": f.ops}
	f.shards.addTo(doc.Options, spec)
	var labRTT time.Duration
	if env.Lab != nil {
		labRTT = env.Lab.Link().RTT
	}
	progressOn := !f.quiet && isTerminal(stdout)
	sweep := &load.StrategySweep{
		NewClient: func(spec load.StrategySpec) load.ClientFactory {
			return env.Factory(spec.Conn, f.expectContinue, spec.Upload, 1)
		},
		Timeout: f.timeout, Setup: env.Setup.Backend, Prefix: env.Prefix, Keep: env.Keep,
		Objects: f.objects, Sizes: sizes, RTT: labRTT, Keys: keys, SkipDownloads: skipDownloads,
		Progress: func(op string, size int64, spec load.StrategySpec) {
			if progressOn {
				fmt.Fprintf(stderr, "\r%-60s", fmt.Sprintf("%s %d × %s: %s", op, f.objects, units.FormatSize(size), spec.Name))
			}
		},
	}
	all, runErr, cerr := sweep.Run(ctx, specs)
	if progressOn {
		fmt.Fprintf(stderr, "\r%-60s\r", "")
	}
	interrupted := ctx.Err() != nil
	if cerr != nil {
		fmt.Fprintf(stderr, "objbench: warning: %s\n", oneLine(cerr.Error()))
	}
	doc.Strategies, doc.Summary, doc.FirstVsLater = analysis.StrategyRows(all)
	analysis.AnnotateStrategies(doc, prices)
	doc.DurationS = time.Since(started).Seconds()
	doc.Interrupted = interrupted
	if runErr != nil && !interrupted && len(all) == 0 {
		return runErr
	}
	textOf := func(w io.Writer) error { return report.WriteStrategiesText(w, doc) }
	return finish(g, &f.saveFlags, f.output, f.jsonOut, doc, textOf, nil, nil, runErr, stdout, stderr)
}

// readKeys reads one key per line, skipping blanks and # comments.
func readKeys(path string) ([]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--keys-from: %w", err)
	}
	defer fh.Close()
	var keys []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if k := strings.TrimSpace(sc.Text()); k != "" && !strings.HasPrefix(k, "#") {
			keys = append(keys, k)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--keys-from: %w", err)
	}
	if len(keys) == 0 {
		return nil, usagef("--keys-from %s names no key", path)
	}
	return keys, nil
}

// writeOutput runs write on stdout, or on FILE when -o FILE is given.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		if err := write(stdout); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write output: %w", err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
