// Package target resolves what a measuring command reaches: the embedded
// lab or a bucket at a provider, with an unmeasured setup client, and the
// safety checks that keep objbench from writing where it should not (the
// bucket exists, the prefix is empty unless forced, and the keys already
// there are remembered so that cleanup never deletes them). It takes a
// plain Config: no flags.
package target

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
	"github.com/objbench/objbench/internal/storage/s3"
	"github.com/objbench/objbench/internal/usage"
)

// Config says what to reach and how to set it up.
type Config struct {
	// URL is the TARGET: a bucket URL, "lab[:PROFILE]", or "" (the lab).
	URL string
	// Endpoint, Region and Profile reach a bucket (not the lab).
	Endpoint, Region, Profile string
	// Timeout bounds each request, including connecting.
	Timeout time.Duration
	// Prefix replaces objbench/<run-id>/ (inside the target's own prefix).
	Prefix string
	// Force writes into a non-empty prefix, keeping what is there.
	Force bool
	// CreateBucket creates a missing bucket (always on the lab).
	CreateBucket bool
	// Persistent (probe, serve) keeps objects under objbench/probe/ (or
	// Prefix) across runs: the prefix need not be empty, nothing is deleted.
	Persistent bool
	// Upload, PartSize and PartConcurrency are the upload settings.
	Upload          storage.UploadStyle
	PartSize        int64
	PartConcurrency int
	// Client is the S3 client library: storage.ClientSDK (default) or
	// storage.ClientMinio.
	Client string
	// RunID names the default prefix.
	RunID string
	// Log is objbench's verbose log: the SDKs' own log lines go there
	// (storage.Options.Log); nil drops them.
	Log io.Writer
	// LabAPI and Lab configure the embedded lab when URL is the lab.
	LabAPI string
	Lab    lab.Config
}

// Env is a resolved target: the lab or a real bucket, checked, with an
// unmeasured setup client and the prefix this run writes under.
type Env struct {
	Target   storage.Target
	Endpoint string
	LabInfo  *document.LabInfo
	Lab      *lab.Lab
	Options  storage.Options
	Trace    nettrace.Config
	Setup    *load.Client
	Prefix   string
	// Keep are keys that were in the prefix before the run (with Force).
	Keep    map[string]bool
	Timeout time.Duration
	// sessions are the clients' CreateSession counts (directory buckets).
	sessions sessionTally
}

// Open resolves cfg, starts the lab when needed, checks the bucket and
// the prefix. The caller closes the Env.
func Open(ctx context.Context, cfg Config) (_ *Env, err error) {
	if cfg.Timeout <= 0 {
		return nil, usage.Fieldf("{Timeout} must be positive")
	}
	if cfg.PartConcurrency < 0 {
		return nil, usage.Fieldf("{PartConcurrency} must be positive")
	}
	if err := checkPrefixFlag(cfg.Prefix); err != nil {
		return nil, err
	}
	switch cfg.Client {
	case "":
		cfg.Client = storage.ClientSDK
	case storage.ClientSDK, storage.ClientMinio:
	default:
		return nil, usage.Fieldf("{Client} %q: use sdk or minio", cfg.Client)
	}
	e := &Env{Endpoint: cfg.Endpoint, Timeout: cfg.Timeout}
	e.Options = storage.Options{Endpoint: cfg.Endpoint, Region: cfg.Region, Profile: cfg.Profile,
		Upload: cfg.Upload, PartSize: cfg.PartSize, PartConcurrency: cfg.PartConcurrency, Client: cfg.Client, Log: cfg.Log}
	e.Trace = nettrace.Config{Timeout: cfg.Timeout}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	createBucket := cfg.CreateBucket
	if IsLab(cfg.URL) {
		if cfg.Endpoint != "" {
			return nil, usage.Fieldf("{Endpoint} needs a TARGET such as s3://bucket; the lab has its own endpoint")
		}
		if !slices.Contains(lab.APIs, cfg.LabAPI) {
			return nil, usage.Fieldf("{API} %q: use s3, gcs or azure", cfg.LabAPI)
		}
		if cfg.Lab.Express && cfg.LabAPI != "s3" {
			return nil, usage.Fieldf("{Express} is an S3 bucket's class: measure the lab's s3 endpoint ({API} s3)")
		}
		lc := cfg.Lab
		lc.APIs = []string{cfg.LabAPI}
		if e.Lab, err = lab.Start(ctx, lc); err != nil {
			return nil, fmt.Errorf("lab: %w", err)
		}
		api := cfg.LabAPI
		loc := e.Lab.Location(api)
		e.Target = storage.Target{Scheme: loc.Scheme, Account: loc.Account, Bucket: loc.Bucket}
		e.Endpoint, e.LabInfo = e.Lab.Endpoint(api), e.Lab.Info(api)
		// lab.Keys has storage.StaticCredentials' fields: a nil pointer stays nil.
		e.Options.Endpoint, e.Options.Credentials, e.Options.Region = e.Endpoint, (*storage.StaticCredentials)(e.Lab.Keys(api)), "us-east-1"
		e.Trace.TLS, e.Trace.Dial, e.Trace.Resolver = e.Lab.ClientTLS(), e.Lab.Dial, e.Lab.Resolver()
		createBucket = true // the lab's Azurite starts empty
	} else {
		if e.Target, err = storage.ParseTarget(cfg.URL); err != nil {
			return nil, usage.Wrap(err)
		}
		if !slices.Contains(providers.SchemeNames(), e.Target.Scheme) {
			return nil, usage.Errorf("unknown scheme %q in %q: supported are %s", e.Target.Scheme, cfg.URL, strings.Join(providers.Schemes(), ", "))
		}
		if e.Target.Scheme == "s3" {
			roots, err := s3.RootCAs()
			if err != nil {
				return nil, err
			}
			if roots != nil {
				e.Trace.TLS = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
			}
		}
	}
	if err := CheckUploadStyle(e.Options.Upload, e.Target.Scheme); err != nil {
		return nil, err
	}
	if e.Options.Client == storage.ClientMinio && e.Target.Scheme != "s3" {
		return nil, usage.Fieldf("{Client} minio is an S3 client; %s:// has one client, its SDK", e.Target.Scheme)
	}
	if err := checkDirectoryBucket(e.Target, e.Options.Client); err != nil {
		return nil, err
	}
	// The setup client (bucket check, pools, cleanup) is not measured: it
	// retries what the network or a faulty lab throws at it.
	if e.Setup, err = e.Factory(nettrace.Pooled, false, e.Options.Upload, 1)(ctx); err != nil {
		return nil, err
	}
	e.sessions.setup() // the setup client's sessions are not the run's
	e.Setup.Backend = storage.WithRetries(e.Setup.Backend, setupAttempts, setupWaits, cfg.Timeout)
	if err := checkBucket(ctx, e.Setup.Backend, e.Target, e.Endpoint, createBucket, cfg.Timeout); err != nil {
		return nil, err
	}
	e.Prefix = RunPrefix(e.Target.Prefix, cfg.Prefix, cfg.RunID, cfg.Persistent)
	if cfg.Persistent {
		return e, nil
	}
	if e.Keep, err = checkPrefix(ctx, e.Setup.Backend, e.Target, e.Prefix, cfg.Force); err != nil {
		return nil, err
	}
	return e, nil
}

// checkPrefixFlag refuses a Prefix that climbs out of the target's.
func checkPrefixFlag(prefix string) error {
	if prefix == "" {
		return nil
	}
	for _, seg := range strings.Split(prefix, "/") {
		if seg == ".." || seg == "." {
			return usage.Fieldf("{Prefix} %q may not contain %q segments", prefix, seg)
		}
	}
	return nil
}

// RunPrefix is where a run writes inside the target's prefix: the given
// prefix, else objbench/probe/ for a persistent pool, else objbench/<run-id>/.
func RunPrefix(targetPrefix, prefix, runID string, persistent bool) string {
	switch {
	case prefix != "":
		return targetPrefix + strings.Trim(prefix, "/") + "/"
	case persistent:
		return targetPrefix + "objbench/probe/"
	}
	return targetPrefix + "objbench/" + runID + "/"
}

// Factory makes cold clients with a connection strategy and upload style.
func (e *Env) Factory(conn nettrace.Strategy, expect bool, upload storage.UploadStyle, attempts int) load.ClientFactory {
	cfg := e.Trace
	cfg.Strategy, cfg.ExpectContinue = conn, expect
	return func(ctx context.Context) (*load.Client, error) {
		tr := nettrace.NewTransport(cfg)
		o := e.Options
		o.HTTPClient, o.MaxAttempts, o.Upload = tr.Client(), attempts, upload
		b, err := providers.Open(ctx, e.Target, o)
		if err != nil {
			return nil, err
		}
		e.sessions.add(b)
		return &load.Client{Backend: b, Transport: tr}, nil
	}
}

// Info is the target block of the JSON documents.
func (e *Env) Info() document.TargetInfo {
	return document.TargetInfo{URL: e.Target.String(), Provider: e.Target.Scheme, Endpoint: e.Endpoint, Region: e.Options.Region}
}

// LabRTT is the lab link's round trip, the unit strategies counts in (0
// off the lab: the rows then count no round trips).
func (e *Env) LabRTT() time.Duration {
	if e.Lab == nil {
		return 0
	}
	return e.Lab.Link().RTT
}

// Close stops the setup client and the lab.
func (e *Env) Close() {
	if e.Setup != nil {
		e.Setup.Close()
	}
	if e.Lab != nil {
		e.Lab.Close()
	}
}

// setupAttempts bounds the unmeasured client's tries per operation, of
// which at most setupWaits may time out.
const (
	setupAttempts = 10
	setupWaits    = 3
)

// CheckUploadStyle refuses a style the provider does not have.
func CheckUploadStyle(u storage.UploadStyle, scheme string) error {
	switch {
	case u == storage.UploadResumable && scheme != "gs":
		return usage.Fieldf("{Upload} resumable is a GCS upload style; %s:// has auto, single and multipart", scheme)
	case u == storage.UploadMultipart && scheme == "gs":
		return usage.Fieldf("{Upload} multipart is for S3 and Azure; gs:// has auto, single and resumable")
	}
	return nil
}

// IsLab reports whether a TARGET names the embedded lab.
func IsLab(t string) bool { return t == "" || t == "lab" || strings.HasPrefix(t, "lab:") }

// LabProfile is PROFILE in lab[:PROFILE].
func LabProfile(t string) string { return strings.TrimPrefix(strings.TrimPrefix(t, "lab"), ":") }

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

// Where names what the env reaches for a person: the endpoint, else the
// target URL.
func (e *Env) Where() string {
	if e.Endpoint == "" {
		return e.Target.String()
	}
	return e.Endpoint
}

// OpenOther opens another place (a shard's --results-to) with an untraced
// client: with this target's endpoint, region, profile and credentials when
// it is on the same real provider, else with the provider's defaults.
func (e *Env) OpenOther(ctx context.Context, t storage.Target) (storage.Backend, error) {
	o := storage.Options{HTTPClient: &http.Client{}, Log: e.Options.Log}
	if t.Scheme == e.Target.Scheme && e.Lab == nil {
		o.Endpoint, o.Region, o.Profile, o.Credentials = e.Options.Endpoint, e.Options.Region, e.Options.Profile, e.Options.Credentials
	}
	return providers.Open(ctx, t, o)
}
