package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
	"github.com/objbench/objbench/internal/storage/s3"
	"github.com/objbench/objbench/internal/units"
)

// targetFlags are the flags of every command that reaches a bucket.
type targetFlags struct {
	endpoint, region, profile string
	timeout                   time.Duration
	prefix                    string
	force, createBucket       bool
	upload, partSize          string
	client                    string
	partConcurrency           int
	lab                       labFlags
	// persistent (probe, serve) keeps objects under objbench/probe/ (or
	// --prefix) across runs: the prefix need not be empty, and nothing is
	// deleted there.
	persistent bool
}

func (tf *targetFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&tf.endpoint, "endpoint", "", "endpoint URL of an S3-compatible server (path-style), a GCS emulator, or Azurite (http://host:port/account)")
	fl.StringVar(&tf.region, "region", "", "region (default: from the AWS config chain, else us-east-1)")
	fl.StringVar(&tf.profile, "profile", "", "AWS shared-config profile")
	fl.DurationVar(&tf.timeout, "timeout", 30*time.Second, "bound on each request, including connecting")
	fl.StringVar(&tf.prefix, "prefix", "", "write under this prefix (inside the target's) instead of objbench/<run-id>/")
	fl.BoolVar(&tf.force, "force", false, "write into a non-empty prefix (objects already there are never deleted, but one named like an objbench key is overwritten)")
	fl.BoolVar(&tf.createBucket, "create-bucket", false, "create the bucket if it does not exist (it is left in place)")
	fl.StringVar(&tf.upload, "upload", "auto", "upload style: auto (the SDK's default for the size), single (one request), resumable (GCS session + data), multipart (S3 multipart, Azure blocks)")
	fl.StringVar(&tf.partSize, "part-size", "", "part or chunk size for multipart and chunked uploads (default: the SDK's)")
	fl.IntVar(&tf.partConcurrency, "part-concurrency", 0, "parts in flight per multipart upload (default: the SDK's)")
	fl.StringVar(&tf.client, "client", storage.ClientSDK, "S3 client library: sdk (aws-sdk-go-v2) or minio (minio-go, the client of MinIO's warp); both are traced alike")
	tf.lab.register(fl, true)
}

// targetEnv is a resolved target: the lab or a real bucket, checked, with
// an unmeasured setup client and the prefix this run writes under.
type targetEnv struct {
	target   storage.Target
	endpoint string
	labInfo  *report.LabInfo
	lab      *lab.Lab
	sopts    storage.Options
	tcfg     nettrace.Config
	setup    *load.Client
	prefix   string
	keep     map[string]bool
	timeout  time.Duration
}

// labDefaults let a command choose the lab it runs on without a TARGET.
type labDefaults struct {
	api, profile string
	tls          bool
}

// openTarget resolves raw (a URL, "lab[:PROFILE]" or empty for the lab),
// starts the lab when needed, checks the bucket and the prefix.
func openTarget(ctx context.Context, raw string, tf *targetFlags, fs *pflag.FlagSet, def labDefaults, runID string) (_ *targetEnv, err error) {
	if tf.timeout <= 0 {
		return nil, usagef("--timeout must be positive")
	}
	e := &targetEnv{endpoint: tf.endpoint, timeout: tf.timeout}
	e.sopts = storage.Options{Endpoint: tf.endpoint, Region: tf.region, Profile: tf.profile}
	if e.sopts.Upload, err = storage.ParseUploadStyle(tf.upload); err != nil {
		return nil, usagef("--upload: %w", err)
	}
	if tf.partSize != "" {
		if e.sopts.PartSize, err = units.ParseSize(tf.partSize); err != nil || e.sopts.PartSize == 0 {
			return nil, usagef("--part-size %q: use a size such as 8MiB", tf.partSize)
		}
	}
	if tf.partConcurrency < 0 {
		return nil, usagef("--part-concurrency must be positive")
	}
	e.sopts.PartConcurrency = tf.partConcurrency
	switch tf.client {
	case storage.ClientSDK, storage.ClientMinio:
		e.sopts.Client = tf.client
	default:
		return nil, usagef("--client %q: use sdk or minio", tf.client)
	}
	if tf.prefix != "" {
		for _, seg := range strings.Split(tf.prefix, "/") {
			if seg == ".." || seg == "." {
				return nil, usagef("--prefix %q may not contain %q segments", tf.prefix, seg)
			}
		}
	}
	e.tcfg = nettrace.Config{Timeout: tf.timeout}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	createBucket := tf.createBucket
	if isLabTarget(raw) {
		if tf.endpoint != "" {
			return nil, usagef("--endpoint needs a TARGET such as s3://bucket; the lab has its own endpoint")
		}
		api, profile := tf.lab.api, labProfile(raw)
		if !fs.Changed("lab-api") && def.api != "" {
			api = def.api
		}
		if profile == "" {
			profile = def.profile
		}
		lf := tf.lab
		if !fs.Changed("tls") && def.tls {
			lf.tls = true
		}
		if !slices.Contains(lab.APIs, api) {
			return nil, usagef("--lab-api %q: use s3, gcs or azure", api)
		}
		if e.lab, err = lf.start(ctx, []string{api}, profile); err != nil {
			return nil, err
		}
		e.target, e.endpoint, e.labInfo = e.lab.Target(api), e.lab.Endpoint(api), e.lab.Info(api)
		e.sopts.Endpoint, e.sopts.Credentials, e.sopts.Region = e.endpoint, e.lab.Credentials(api), "us-east-1"
		e.tcfg.TLS, e.tcfg.HandshakeDelay = e.lab.ClientTLS(), e.lab.HandshakeDelay()
		createBucket = true // the lab's Azurite starts empty
	} else {
		if ch := tf.lab.changed(fs); len(ch) > 0 {
			return nil, usagef("%s apply to the embedded lab only (TARGET lab[:PROFILE] or none), not to %s", strings.Join(ch, ", "), raw)
		}
		if e.target, err = storage.ParseTarget(raw); err != nil {
			return nil, usageError{err}
		}
		if !slices.Contains(providers.SchemeNames(), e.target.Scheme) {
			return nil, usagef("unknown scheme %q in %q: supported are %s", e.target.Scheme, raw, strings.Join(providers.Schemes(), ", "))
		}
		if e.target.Scheme == "s3" {
			roots, err := s3.RootCAs()
			if err != nil {
				return nil, err
			}
			if roots != nil {
				e.tcfg.TLS = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
			}
		}
	}
	if err := checkUploadStyle(e.sopts.Upload, e.target.Scheme); err != nil {
		return nil, err
	}
	if e.sopts.Client == storage.ClientMinio && e.target.Scheme != "s3" {
		return nil, usagef("--client minio is an S3 client; %s:// has one client, its SDK", e.target.Scheme)
	}
	// The setup client (bucket check, pools, cleanup) is not measured: it
	// retries what the network or a faulty lab throws at it.
	if e.setup, err = e.factory(nettrace.Pooled, false, e.sopts.Upload, 1)(ctx); err != nil {
		return nil, err
	}
	e.setup.Backend = storage.WithRetries(e.setup.Backend, setupAttempts, setupWaits, tf.timeout)
	if err := checkBucket(ctx, e.setup.Backend, e.target, e.endpoint, createBucket, tf.timeout); err != nil {
		return nil, err
	}
	e.prefix = e.target.Prefix + "objbench/" + runID + "/"
	if tf.persistent {
		e.prefix = e.target.Prefix + "objbench/probe/"
	}
	if tf.prefix != "" {
		e.prefix = e.target.Prefix + strings.Trim(tf.prefix, "/") + "/"
	}
	if tf.persistent {
		return e, nil
	}
	if e.keep, err = checkPrefix(ctx, e.setup.Backend, e.target, e.prefix, tf.force); err != nil {
		return nil, err
	}
	return e, nil
}

// factory makes cold clients with a connection strategy and upload style.
func (e *targetEnv) factory(conn nettrace.Strategy, expect bool, upload storage.UploadStyle, attempts int) load.ClientFactory {
	cfg := e.tcfg
	cfg.Strategy, cfg.ExpectContinue = conn, expect
	return func(ctx context.Context) (*load.Client, error) {
		tr := nettrace.NewTransport(cfg)
		o := e.sopts
		o.HTTPClient, o.MaxAttempts, o.Upload = tr.Client(), attempts, upload
		b, err := providers.Open(ctx, e.target, o)
		if err != nil {
			return nil, err
		}
		return &load.Client{Backend: b, Transport: tr}, nil
	}
}

// info is the target block of the JSON documents.
func (e *targetEnv) info() report.TargetInfo {
	return report.TargetInfo{URL: e.target.String(), Provider: e.target.Scheme, Endpoint: e.endpoint, Region: e.sopts.Region}
}

// Close stops the setup client and the lab.
func (e *targetEnv) Close() {
	if e.setup != nil {
		e.setup.Close()
	}
	if e.lab != nil {
		e.lab.Close()
	}
}

// setupAttempts bounds the unmeasured client's tries per operation, of
// which at most setupWaits may time out.
const (
	setupAttempts = 10
	setupWaits    = 3
)

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

// atMostOneTarget accepts an optional TARGET argument (none: the lab).
func atMostOneTarget(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef("%s takes at most one TARGET, got %d: %s", command, len(args), strings.Join(args, " "))
		}
		return nil
	}
}

// targetArg is the TARGET argument, or "" (the lab) without one.
func targetArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

func isLabTarget(t string) bool { return t == "" || t == "lab" || strings.HasPrefix(t, "lab:") }

// labProfile is PROFILE in lab[:PROFILE].
func labProfile(t string) string { return strings.TrimPrefix(strings.TrimPrefix(t, "lab"), ":") }

// checkBucket turns the first contact with the service into one clear line.
func checkBucket(ctx context.Context, b storage.Backend, t storage.Target, endpoint string, create bool, timeout time.Duration) error {
	where := endpoint
	if where == "" {
		where = "the " + t.Scheme + " service"
	}
	exists, err := b.BucketExists(ctx)
	if err != nil {
		return describe(err, t, where, timeout)
	}
	if exists {
		return nil
	}
	if !create {
		return fmt.Errorf("bucket %q does not exist at %s: create it, or pass --create-bucket", t.Bucket, where)
	}
	if err := b.CreateBucket(ctx); err != nil {
		return fmt.Errorf("create bucket %q: %w", t.Bucket, describe(err, t, where, timeout))
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
func checkPrefix(ctx context.Context, b storage.Backend, t storage.Target, prefix string, force bool) (map[string]bool, error) {
	const maxKeep = 1_000_000
	keep := map[string]bool{}
	errFull := errors.New("listing stopped")
	err := b.List(ctx, prefix, func(oi storage.ObjectInfo) error {
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
