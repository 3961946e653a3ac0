package cli

import (
	"github.com/objbench/objbench/internal/target"

	"context"

	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/storage"
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

// labDefaults let a command choose the lab it runs on without a TARGET.
type labDefaults struct {
	api, profile string
	tls          bool
}

// openTarget resolves raw (a URL, "lab[:PROFILE]" or empty for the lab)
// with the command's flags and lab defaults: see target.Open.
func openTarget(ctx context.Context, raw string, tf *targetFlags, fs *pflag.FlagSet, def labDefaults, runID string) (*target.Env, error) {
	cfg, err := tf.config(raw, fs, def, runID)
	if err != nil {
		return nil, err
	}
	return target.Open(ctx, cfg)
}

// config turns the flags into a target configuration (usage errors only).
func (tf *targetFlags) config(raw string, fs *pflag.FlagSet, def labDefaults, runID string) (target.Config, error) {
	cfg := target.Config{URL: raw, Endpoint: tf.endpoint, Region: tf.region, Profile: tf.profile, Timeout: tf.timeout,
		Prefix: tf.prefix, Force: tf.force, CreateBucket: tf.createBucket, Persistent: tf.persistent,
		PartConcurrency: tf.partConcurrency, Client: tf.client, RunID: runID}
	var err error
	if cfg.Upload, err = storage.ParseUploadStyle(tf.upload); err != nil {
		return cfg, usagef("--upload: %w", err)
	}
	if tf.partSize != "" {
		if cfg.PartSize, err = units.ParseSize(tf.partSize); err != nil || cfg.PartSize == 0 {
			return cfg, usagef("--part-size %q: use a size such as 8MiB", tf.partSize)
		}
	}
	if !target.IsLab(raw) {
		if ch := tf.lab.changed(fs); len(ch) > 0 {
			return cfg, usagef("%s apply to the embedded lab only (TARGET lab[:PROFILE] or none), not to %s", strings.Join(ch, ", "), raw)
		}
		return cfg, nil
	}
	cfg.LabAPI = tf.lab.API
	if !fs.Changed("lab-api") && def.api != "" {
		cfg.LabAPI = def.api
	}
	profile := target.LabProfile(raw)
	if profile == "" {
		profile = def.profile
	}
	lf := tf.lab
	if !fs.Changed("tls") && def.tls {
		lf.TLS = true
	}
	cfg.Lab, err = lf.config(nil, profile)
	return cfg, err
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
