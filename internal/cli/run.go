package cli

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
	"github.com/objbench/objbench/internal/storage/s3"
)

// runFlags are the raw flag values of `objbench run`.
type runFlags struct {
	endpoint, region, profile string
	conn                      string
	expectContinue            bool
	workloads                 string
	objects                   int
	objectSize                string
	gets                      int
	latencyConcurrency        int
	opSizes                   string
	opCount                   int
	sizes                     string
	sizeCount                 int
	levels                    string
	levelSize                 string
	requests                  int
	duration                  time.Duration
	timeout                   time.Duration
	maxAttempts               int
	jsonOut                   bool
	output                    string
	prefix                    string
	force, createBucket       bool
	upload                    string
	partSize                  string
	partConcurrency           int
	quiet                     bool
	lab                       labFlags
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	d := load.Defaults()
	cmd := &cobra.Command{
		Use:   "run [TARGET]",
		Short: "Measure TTFB, latency, throughput and phases on a bucket (or the embedded lab)",
		Long: `Run measures what a program gets from object storage: time to first byte and total
latency percentiles, per-request throughput, aggregate throughput under concurrency,
and where the time goes, phase by phase (dns, connect, tls, send, wait100, wait, recv),
split into each worker's first request (cold: a new connection) and the later ones.

TARGET is s3://bucket[/prefix]. With no TARGET (or "lab"), objbench starts an embedded
S3-compatible server on 127.0.0.1 and measures that: no account needed.

Workloads (--workload, comma-separated; default all three, a quick suite):
  latency      a pool of --objects objects of --object-size, then --gets GETs of random
               pool keys; then PUT, HEAD and DELETE --op-count times at each --op-sizes
  throughput   single-stream uploads then downloads, --size-count of each --sizes
  concurrency  at each --concurrency level, 2 x level writes then reads of --concurrency-size

Safety: objects are written only under <prefix>/objbench/<run-id>/ (or --prefix), and
only the objects this run wrote are deleted at the end. Ctrl-C stops the load, cleans
up and prints partial results; a second Ctrl-C exits at once.

Credentials come from the AWS default chain: environment (AWS_ACCESS_KEY_ID, ...),
shared config and credentials files (--profile or AWS_PROFILE), instance metadata.
They are never printed, logged or stored.

Exit status: 0 success, 1 failure, 2 usage error, 130 interrupted.`,
		Example: `  objbench run                                   # quick suite on the embedded lab
  objbench run --json -o result.json             # the objbench/v1 JSON document to a file
  objbench run s3://my-bucket --region us-west-2
  objbench run s3://my-bucket/bench --profile prod --workload latency --gets 200
  objbench run s3://bench --endpoint http://127.0.0.1:9000 --create-bucket
  objbench run s3://my-bucket --conn fresh       # a new connection per request
  objbench run s3://my-bucket --conn h2 --workload throughput --sizes 1MiB,8MiB
  objbench run s3://my-bucket --workload throughput --expect-continue
  objbench run s3://my-bucket --workload concurrency --concurrency 1,8,32 --concurrency-size 8MiB
  objbench run s3://my-bucket --requests 50 --duration 10s --timeout 5s`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("run takes at most one TARGET, got %d: %s", len(args), strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			target := ""
			if len(args) == 1 {
				target = args[0]
			}
			if isLabTarget(target) {
				if f.endpoint != "" {
					return usagef("--endpoint needs a TARGET such as s3://bucket; the lab has its own endpoint")
				}
			} else if ch := f.lab.changed(cmd.Flags()); len(ch) > 0 {
				return usagef("%s apply to the embedded lab only (TARGET lab[:PROFILE] or none), not to %s", strings.Join(ch, ", "), target)
			}
			return runRun(cmd.Context(), target, &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.endpoint, "endpoint", "", "S3 endpoint URL for S3-compatible servers (MinIO, …); enables path-style addressing")
	fl.StringVar(&f.region, "region", "", "region (default: from the AWS config chain, else us-east-1)")
	fl.StringVar(&f.profile, "profile", "", "AWS shared-config profile")
	fl.StringVar(&f.conn, "conn", string(nettrace.Pooled), "connection strategy: pooled (keep-alive), fresh (new connection per request), h2 (HTTP/2, h2c on plain HTTP)")
	fl.BoolVar(&f.expectContinue, "expect-continue", false, "send 'Expect: 100-continue' on uploads (costs one round trip)")
	fl.StringVar(&f.workloads, "workload", strings.Join(d.Workloads, ","), "workloads to run: latency, throughput, concurrency (or all)")
	fl.IntVar(&f.objects, "objects", d.PoolObjects, "latency: objects in the GET pool")
	fl.StringVar(&f.objectSize, "object-size", load.FormatSize(d.PoolSize), "latency: size of each pool object")
	fl.IntVar(&f.gets, "gets", d.Gets, "latency: GETs of random pool keys")
	fl.IntVar(&f.latencyConcurrency, "latency-concurrency", d.LatencyConcurrency, "latency: workers, each with a cold client of its own")
	fl.StringVar(&f.opSizes, "op-sizes", joinSizes(d.OpSizes), "latency: sizes for the PUT, HEAD and DELETE steps")
	fl.IntVar(&f.opCount, "op-count", d.OpCount, "latency: PUTs, HEADs and DELETEs at each op size")
	fl.StringVar(&f.sizes, "sizes", joinSizes(d.Sizes), "throughput: object sizes (KiB/MiB binary, KB/MB decimal)")
	fl.IntVar(&f.sizeCount, "size-count", d.SizeCount, "throughput: uploads and downloads per size")
	fl.StringVar(&f.levels, "concurrency", joinInts(d.Levels), "concurrency: levels (parallel workers)")
	fl.StringVar(&f.levelSize, "concurrency-size", load.FormatSize(d.LevelSize), "concurrency: object size")
	fl.IntVar(&f.requests, "requests", 0, "operations per step, replacing every per-step count above (0: their defaults)")
	fl.DurationVar(&f.duration, "duration", d.Duration, "bound on each step's wall time (whichever of count and duration comes first)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound on each request, including connecting")
	fl.IntVar(&f.maxAttempts, "max-attempts", 1, "attempts per operation (1: no SDK retries; retries are counted apart)")
	fl.BoolVar(&f.jsonOut, "json", false, "print the objbench/v1 JSON document instead of tables")
	fl.StringVarP(&f.output, "output", "o", "", "write the output to FILE instead of standard output")
	fl.StringVar(&f.prefix, "prefix", "", "write under this prefix (inside the target's) instead of objbench/<run-id>/")
	fl.BoolVar(&f.force, "force", false, "write into a non-empty prefix (objects already there are never deleted, but one named like an objbench key is overwritten)")
	fl.BoolVar(&f.createBucket, "create-bucket", false, "create the bucket if it does not exist (it is left in place)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar")
	fl.StringVar(&f.upload, "upload", "auto", "upload style: auto (the SDK's default for the size), single (one request), resumable (GCS session + data), multipart (S3 multipart, Azure blocks)")
	fl.StringVar(&f.partSize, "part-size", "", "part or chunk size for multipart and chunked uploads (default: the SDK's)")
	fl.IntVar(&f.partConcurrency, "part-concurrency", 0, "parts in flight per multipart upload (default: the SDK's)")
	f.lab.register(fl, true)
	return cmd
}

func joinSizes(s []int64) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = load.FormatSize(n)
	}
	return strings.Join(parts, ",")
}

func joinInts(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ",")
}

// options turns flags into workload options, or a usage error.
func (f *runFlags) options() (load.Options, error) {
	o := load.Defaults()
	var err error
	if o.Workloads, err = load.ParseWorkloads(f.workloads); err != nil {
		return o, usagef("--workload: %w", err)
	}
	for name, v := range map[string]int{"--objects": f.objects, "--gets": f.gets, "--latency-concurrency": f.latencyConcurrency,
		"--op-count": f.opCount, "--size-count": f.sizeCount, "--max-attempts": f.maxAttempts} {
		if v <= 0 {
			return o, usagef("%s must be a positive count, got %d", name, v)
		}
	}
	if f.requests < 0 {
		return o, usagef("--requests must be positive (or 0 for the defaults), got %d", f.requests)
	}
	if f.duration < 0 || f.timeout <= 0 {
		return o, usagef("--duration and --timeout must be positive")
	}
	o.PoolObjects, o.Gets, o.LatencyConcurrency, o.OpCount, o.SizeCount = f.objects, f.gets, f.latencyConcurrency, f.opCount, f.sizeCount
	o.Requests, o.Duration = f.requests, f.duration
	if o.PoolSize, err = load.ParseSize(f.objectSize); err != nil {
		return o, usagef("--object-size: %w", err)
	}
	if o.OpSizes, err = load.ParseSizes(f.opSizes); err != nil {
		return o, usagef("--op-sizes: %w", err)
	}
	if o.Sizes, err = load.ParseSizes(f.sizes); err != nil {
		return o, usagef("--sizes: %w", err)
	}
	if o.Levels, err = load.ParseInts(f.levels); err != nil {
		return o, usagef("--concurrency: %w", err)
	}
	if o.LevelSize, err = load.ParseSize(f.levelSize); err != nil {
		return o, usagef("--concurrency-size: %w", err)
	}
	if f.prefix != "" {
		for _, seg := range strings.Split(f.prefix, "/") {
			if seg == ".." || seg == "." {
				return o, usagef("--prefix %q may not contain %q segments", f.prefix, seg)
			}
		}
	}
	return o, nil
}

func runRun(ctx context.Context, rawTarget string, f *runFlags, stdout, stderr io.Writer) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	strategy, err := nettrace.ParseStrategy(f.conn)
	if err != nil {
		return usagef("--conn: %w", err)
	}
	sopts := storage.Options{Endpoint: f.endpoint, Region: f.region, Profile: f.profile, MaxAttempts: f.maxAttempts}
	if sopts.Upload, err = storage.ParseUploadStyle(f.upload); err != nil {
		return usagef("--upload: %w", err)
	}
	if f.partSize != "" {
		if sopts.PartSize, err = load.ParseSize(f.partSize); err != nil || sopts.PartSize == 0 {
			return usagef("--part-size %q: use a size such as 8MiB", f.partSize)
		}
	}
	if f.partConcurrency < 0 {
		return usagef("--part-concurrency must be positive")
	}
	sopts.PartConcurrency = f.partConcurrency
	runID := newRunID()
	started := time.Now()

	// Where to run: a real target, or the embedded lab.
	var (
		target   storage.Target
		labInfo  *report.LabInfo
		endpoint = f.endpoint
	)
	transportCfg := nettrace.Config{Strategy: strategy, ExpectContinue: f.expectContinue, Timeout: f.timeout}
	if isLabTarget(rawTarget) {
		api := f.lab.api
		if !slices.Contains(lab.APIs, api) {
			return usagef("--lab-api %q: use s3, gcs or azure", api)
		}
		l, err := f.lab.start(ctx, []string{api}, labProfile(rawTarget))
		if err != nil {
			return err
		}
		defer l.Close()
		target, endpoint, labInfo = l.Target(api), l.Endpoint(api), l.Info(api)
		sopts.Endpoint, sopts.Credentials, sopts.Region = endpoint, l.Credentials(api), "us-east-1"
		f.createBucket = true // the lab's Azurite starts empty
		transportCfg.TLS, transportCfg.HandshakeDelay = l.ClientTLS(), l.HandshakeDelay()
	} else {
		if target, err = storage.ParseTarget(rawTarget); err != nil {
			return usageError{err}
		}
		if !slices.Contains(providers.SchemeNames(), target.Scheme) {
			return usagef("unknown scheme %q in %q: supported are %s", target.Scheme, rawTarget, strings.Join(providers.Schemes(), ", "))
		}
		if target.Scheme == "s3" {
			roots, err := s3.RootCAs()
			if err != nil {
				return err
			}
			if roots != nil {
				transportCfg.TLS = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
			}
		}
	}

	if err := checkUploadStyle(sopts.Upload, target.Scheme); err != nil {
		return err
	}
	clientWith := func(ctx context.Context, attempts int) (*load.Client, error) {
		tr := nettrace.NewTransport(transportCfg)
		o := sopts
		o.HTTPClient, o.MaxAttempts = tr.Client(), attempts
		b, err := providers.Open(ctx, target, o)
		if err != nil {
			return nil, err
		}
		return &load.Client{Backend: b, Transport: tr}, nil
	}
	newClient := func(ctx context.Context) (*load.Client, error) { return clientWith(ctx, f.maxAttempts) }
	// The setup client (bucket check, pool, cleanup) is not measured: it
	// retries what the network or a faulty lab throws at it.
	setup, err := clientWith(ctx, 1)
	if err != nil {
		return err
	}
	defer setup.Close()
	setup.Backend = storage.WithRetries(setup.Backend, setupAttempts, setupWaits, f.timeout)
	if err := checkBucket(ctx, setup.Backend, target, endpoint, f); err != nil {
		return err
	}
	prefix := target.Prefix + "objbench/" + runID + "/"
	if f.prefix != "" {
		prefix = target.Prefix + strings.Trim(f.prefix, "/") + "/"
	}
	keep, err := checkPrefix(ctx, setup.Backend, target, prefix, f.force, f.timeout)
	if err != nil {
		return err
	}

	doc := &report.Document{
		Schema: report.Schema, RunID: runID,
		Target:    report.TargetInfo{URL: target.String(), Provider: target.Scheme, Endpoint: endpoint, Region: f.region},
		Lab:       labInfo,
		StartedAt: started.UTC().Format(time.RFC3339),
		Client:    clientInfo(),
		Options:   f.asMap(strategy),
	}
	progress := newProgress(stderr, !f.quiet && isTerminal(stdout))
	sess := &load.Session{
		Runner: &load.Runner{NewClient: newClient, Timeout: f.timeout, Progress: progress.update},
		Setup:  setup.Backend,
		Prefix: prefix,
		Opts:   opts,
		Keep:   keep,
		BeforeStep: func(i, n int, st *load.Step) {
			progress.step(i, n)
		},
		AfterStep: func(res *load.StepResult) {
			doc.Results = append(doc.Results, report.FromSummary(res.Step.Workload, res.Step.Op, res.Step.Size,
				res.Step.Concurrency, string(strategy), res.Wall, res.Summary))
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
	if runErr != nil && !interrupted {
		if len(doc.Results) == 0 {
			return runErr
		}
		fmt.Fprintf(stderr, "objbench: run stopped early: %s\n", oneLine(runErr.Error()))
	}
	if err := writeOutput(doc, f.jsonOut, f.output, stdout); err != nil {
		return err
	}
	if interrupted {
		return errInterrupted
	}
	if runErr != nil {
		return runErr
	}
	return nil
}

// checkUploadStyle refuses a style the provider does not have.
func checkUploadStyle(u storage.UploadStyle, scheme string) error {
	switch {
	case u == storage.UploadResumable && scheme != "gs":
		return usagef("--upload resumable is a GCS upload style; %s:// has auto, single and multipart", scheme)
	case u == storage.UploadMultipart && scheme == "gs":
		return usagef("--upload multipart is for S3 and Azure; gs:// has auto, single and resumable")
	}
	return nil
}

func isLabTarget(t string) bool { return t == "" || t == "lab" || strings.HasPrefix(t, "lab:") }

// labProfile is PROFILE in lab[:PROFILE].
func labProfile(t string) string { return strings.TrimPrefix(strings.TrimPrefix(t, "lab"), ":") }

// setupAttempts bounds the unmeasured client's tries per operation, of
// which at most setupWaits may time out.
const (
	setupAttempts = 10
	setupWaits    = 3
)

// checkBucket turns the first contact with the service into one clear line.
func checkBucket(ctx context.Context, b storage.Backend, t storage.Target, endpoint string, f *runFlags) error {
	cctx := ctx
	where := endpoint
	if where == "" {
		where = "the " + t.Scheme + " service"
	}
	exists, err := b.BucketExists(cctx)
	if err != nil {
		return describe(err, t, where, f.timeout)
	}
	if exists {
		return nil
	}
	if !f.createBucket {
		return fmt.Errorf("bucket %q does not exist at %s: create it, or pass --create-bucket", t.Bucket, where)
	}
	if err := b.CreateBucket(cctx); err != nil {
		return fmt.Errorf("create bucket %q: %w", t.Bucket, describe(err, t, where, f.timeout))
	}
	return nil
}

// describe explains a first-contact failure by its class.
func describe(err error, t storage.Target, where string, timeout time.Duration) error {
	switch storage.Classify(err) {
	case storage.ClassCanceled:
		return err
	case storage.ClassTimeout:
		return fmt.Errorf("%s did not answer within %d tries of %s (--timeout): %w", where, setupWaits, timeout, err)
	case storage.ClassReset:
		return fmt.Errorf("cannot connect to %s: %w", where, err)
	case storage.ClassAccessDenied:
		return fmt.Errorf("access to bucket %q denied: check the credentials and their permissions: %w", t.Bucket, err)
	}
	return fmt.Errorf("bucket %q at %s: %w", t.Bucket, where, err)
}

// checkPrefix refuses a non-empty prefix unless forced, and then returns the
// keys already there so that cleanup never deletes them.
func checkPrefix(ctx context.Context, b storage.Backend, t storage.Target, prefix string, force bool, timeout time.Duration) (map[string]bool, error) {
	const maxKeep = 1_000_000
	cctx := ctx
	keep := map[string]bool{}
	errFull := errors.New("listing stopped")
	err := b.List(cctx, prefix, func(oi storage.ObjectInfo) error {
		if !force {
			return errFull
		}
		keep[oi.Key] = true
		if len(keep) >= maxKeep {
			return errFull
		}
		return nil
	})
	switch {
	case errors.Is(err, errFull) && !force:
		return nil, fmt.Errorf("prefix %s/%s is not empty: objbench writes only into an empty prefix; pass --force to write there anyway", t.Scheme+"://"+t.Bucket, prefix)
	case errors.Is(err, errFull):
		return nil, fmt.Errorf("prefix %s is too large to protect (over %d objects); use another --prefix", prefix, maxKeep)
	case err != nil:
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	return keep, nil
}

func writeOutput(doc *report.Document, asJSON bool, path string, stdout io.Writer) error {
	w := stdout
	if path != "" {
		fh, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("output: %w", err)
		}
		defer fh.Close()
		w = fh
	}
	var err error
	if asJSON {
		err = report.WriteJSON(w, doc)
	} else {
		err = report.WriteText(w, doc)
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if fh, ok := w.(*os.File); ok && path != "" {
		if err := fh.Close(); err != nil {
			return fmt.Errorf("output: %w", err)
		}
	}
	return nil
}

func (f *runFlags) asMap(strategy nettrace.Strategy) map[string]string {
	return map[string]string{
		"conn": string(strategy), "expect_continue": fmt.Sprint(f.expectContinue),
		"workload": f.workloads, "objects": fmt.Sprint(f.objects), "object_size": f.objectSize,
		"gets": fmt.Sprint(f.gets), "op_sizes": f.opSizes, "op_count": fmt.Sprint(f.opCount),
		"sizes": f.sizes, "size_count": fmt.Sprint(f.sizeCount), "concurrency": f.levels,
		"concurrency_size": f.levelSize, "requests": fmt.Sprint(f.requests),
		"duration": f.duration.String(), "timeout": f.timeout.String(), "max_attempts": fmt.Sprint(f.maxAttempts),
		"upload": f.upload, "part_size": f.partSize, "part_concurrency": fmt.Sprint(f.partConcurrency),
	}
}

func clientInfo() report.ClientInfo {
	host, _ := os.Hostname()
	return report.ClientInfo{Version: version(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Host: host, CPUs: runtime.NumCPU()}
}

// newRunID is sortable by time and unique: 20261122T213000-1a2b3c.
func newRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
