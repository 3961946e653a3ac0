package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

type strategiesFlags struct {
	targetFlags
	saveFlags
	objects        int
	sizes          string
	parallel       int
	expectContinue bool
	keysFrom       string
	ops            string
	jsonOut        bool
	output         string
	quiet          bool
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
	return cmd
}

func runStrategies(ctx context.Context, g *globals, rawTarget string, f *strategiesFlags, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	labels, err := f.saveFlags.check()
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
	runID := newRunID()
	started := time.Now()
	env, err := openTarget(ctx, rawTarget, &f.targetFlags, fs, labDefaults{api: "gcs", profile: "cross-region"}, runID)
	if err != nil {
		return err
	}
	defer env.Close()
	if len(keys) > 0 {
		for i, k := range keys {
			keys[i] = env.target.Prefix + k
		}
	}
	sdkUpload := storage.UploadAuto
	if env.target.Scheme == "gs" {
		sdkUpload = storage.UploadResumable
	}
	specs := load.Strategies(sdkUpload, f.parallel)
	doc := &report.StrategiesDocument{Schema: report.Schema, RunID: runID, Target: env.info(), Lab: env.labInfo,
		StartedAt: started.UTC().Format(time.RFC3339), Client: clientInfo(), Labels: labels,
		Options: map[string]string{"objects": fmt.Sprint(f.objects), "size": f.sizes, "parallel": fmt.Sprint(f.parallel),
			"expect_continue": fmt.Sprint(f.expectContinue), "ops": f.ops}}
	var labRTT time.Duration
	if env.lab != nil {
		labRTT = env.lab.Link().RTT
	}
	progressOn := !f.quiet && isTerminal(stdout)
	var all []*load.StrategyResult
	var runErr error
	var written []*load.KeySet
	for _, size := range sizes {
		sr := &load.StrategyRun{
			NewClient: func(spec load.StrategySpec) load.ClientFactory {
				return env.factory(spec.Conn, f.expectContinue, spec.Upload, 1)
			},
			Timeout: f.timeout, Setup: env.setup.Backend, Prefix: fmt.Sprintf("%s%s/", env.prefix, units.FormatSize(size)),
			Objects: f.objects, Size: size, RTT: labRTT, Keys: keys, SkipDownloads: skipDownloads,
			Progress: func(op string, spec load.StrategySpec) {
				if progressOn {
					fmt.Fprintf(stderr, "\r%-60s", fmt.Sprintf("%s %d × %s: %s", op, f.objects, units.FormatSize(size), spec.Name))
				}
			},
		}
		written = append(written, &sr.Written)
		res, err := sr.Run(ctx, specs)
		all = append(all, res...)
		if err != nil {
			runErr = err
			break
		}
	}
	if progressOn {
		fmt.Fprintf(stderr, "\r%-60s\r", "")
	}
	interrupted := ctx.Err() != nil
	cleanup := &load.Session{Setup: env.setup.Backend, Prefix: env.prefix, Keep: env.keep}
	for _, w := range written {
		for _, k := range w.Keys() {
			cleanup.Written.Add(k)
		}
	}
	if _, cerr := cleanup.Cleanup(2*time.Minute + f.timeout); cerr != nil {
		fmt.Fprintf(stderr, "objbench: warning: %s\n", oneLine(cerr.Error()))
	}
	doc.Strategies, doc.Summary, doc.FirstVsLater = strategyRows(all)
	doc.DurationS = time.Since(started).Seconds()
	doc.Interrupted = interrupted
	if runErr != nil && !interrupted && len(all) == 0 {
		return runErr
	}
	if err := writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.jsonOut {
			return report.WriteStrategiesJSON(w, doc)
		}
		return report.WriteStrategiesText(w, doc)
	}); err != nil {
		return err
	}
	var steps []results.Step
	for i, r := range doc.Strategies {
		summary, _ := json.Marshal(r)
		steps = append(steps, results.Step{Index: i, Workload: "strategies", Op: r.Op, SizeBytes: r.SizeBytes,
			Concurrency: r.Concurrency, Strategy: r.Strategy, Summary: summary})
	}
	if err := save(g, &f.saveFlags, results.Run{ID: runID, Command: "strategies", StartedAt: started, DurationS: doc.DurationS,
		TargetURL: doc.Target.URL, Provider: doc.Target.Provider, Endpoint: doc.Target.Endpoint, Host: hostname(),
		Labels: labels, Interrupted: interrupted, Document: marshal(func(w io.Writer) error { return report.WriteStrategiesJSON(w, doc) })},
		steps, nil, stderr); err != nil {
		return err
	}
	if interrupted {
		return errInterrupted
	}
	return runErr
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

// strategyRows turns results into table rows, with speed-ups against
// sdk-default, one sentence per op and size, and seed 000's first-vs-later.
func strategyRows(all []*load.StrategyResult) ([]report.StrategyRow, []string, *report.FirstVsLater) {
	var rows []report.StrategyRow
	var summary []string
	var fvl *report.FirstVsLater
	type group struct {
		op   string
		size int64
	}
	base := map[group]*load.StrategyResult{}
	for _, r := range all {
		if r.Spec.Name == load.SDKDefault && r.Available {
			base[group{r.Op, r.Size}] = r
		}
	}
	best := map[group]*load.StrategyResult{}
	var order []group
	for _, r := range all {
		g := group{r.Op, r.Size}
		if _, seen := best[g]; !seen {
			order = append(order, g)
			best[g] = nil
		}
		row := report.StrategyRow{Strategy: r.Spec.Name, Description: r.Spec.Description, Op: r.Op, Objects: r.Objects,
			SizeBytes: r.Size, Concurrency: r.Spec.Concurrency, Available: r.Available, Reason: r.Reason,
			Errors: r.Errors, ErrorsByClass: r.ErrorsByClass, RTTs: map[string]float64{}}
		if row.Concurrency == 0 {
			row.Concurrency = r.Objects
		}
		if r.Available {
			row.WallS = r.Wall.Seconds()
			row.ObjectsPerS = float64(r.Count) / r.Wall.Seconds()
			row.P50ms, row.P99ms = msf(r.P50), msf(r.P99)
			row.Connections, row.TLSHandshakes = r.Connections, r.TLSHandshakes
			row.RequestsPerObject = float64(r.Requests) / float64(max(r.Count, 1))
			row.RTTms = msf(r.RTT)
			for _, p := range nettrace.Phases() {
				row.RTTs[p.String()] = r.RTTs(p)
			}
			for proto := range r.Protocols {
				row.Protocol = proto
			}
			if b := base[g]; b != nil {
				row.Speedup = b.Wall.Seconds() / r.Wall.Seconds()
			}
			if bb := best[g]; bb == nil || r.Wall < bb.Wall {
				best[g] = r
			}
			if r.Op == "get" && r.Spec.Name == load.ReusedConnection && fvl == nil && r.FirstN > 0 && r.LaterN > 0 {
				fvl = &report.FirstVsLater{Strategy: r.Spec.Name,
					First: map[string]float64{"connect": msf(r.First[nettrace.Connect]), "tls": msf(r.First[nettrace.TLS]), "total": msf(r.FirstTotal)},
					Later: map[string]float64{"connect": msf(r.Later[nettrace.Connect]), "tls": msf(r.Later[nettrace.TLS]), "total": msf(r.LaterTotal)}}
			}
		}
		rows = append(rows, row)
	}
	for _, g := range order {
		b, w := base[g], best[g]
		if b == nil || w == nil || w == b {
			continue
		}
		summary = append(summary, savingSentence(b, w))
	}
	return rows, summary, fvl
}

// savingSentence names the largest saving and the phase it came from.
func savingSentence(base, best *load.StrategyResult) string {
	verb := map[string]string{"put": "uploads", "get": "downloads"}[base.Op]
	var phase nettrace.Phase
	var saved float64
	for _, p := range nettrace.Phases() {
		// Round trips per object that the sequential base spends and the best does not.
		if d := base.RTTs(p) - best.RTTs(p)/float64(max(best.Spec.Concurrency, 1)); d > saved {
			phase, saved = p, d
		}
	}
	s := fmt.Sprintf("%d %s of %s: %s takes %.2f s instead of %.2f s with sdk-default (%.0fx faster)",
		base.Objects, verb, units.FormatSize(base.Size), best.Spec.Name, best.Wall.Seconds(), base.Wall.Seconds(),
		base.Wall.Seconds()/best.Wall.Seconds())
	if saved > 0 {
		s += fmt.Sprintf("; the largest saving is in %s: sdk-default spends %.1f round trips per object there, %s %.1f",
			phase, base.RTTs(phase), best.Spec.Name, best.RTTs(phase))
		if best.Spec.Concurrency != 1 {
			s += " and overlaps them across objects"
		}
	}
	return s + "."
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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
