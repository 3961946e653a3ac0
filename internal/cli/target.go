package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/usage"
)

// targetFlags are the flags of every command that reaches a bucket.
type targetFlags struct{ target.Settings }

func (tf *targetFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&tf.Endpoint, "endpoint", "", "endpoint URL of an S3-compatible server (path-style), a GCS emulator, or Azurite (http://host:port/account)")
	fl.StringVar(&tf.Region, "region", "", "region (default: from the AWS config chain, else us-east-1)")
	fl.StringVar(&tf.Profile, "profile", "", "AWS shared-config profile")
	fl.DurationVar(&tf.Timeout, "timeout", 30*time.Second, "bound on each request, including connecting")
	fl.StringVar(&tf.Prefix, "prefix", "", "write under this prefix (inside the target's) instead of objbench/<run-id>/")
	fl.BoolVar(&tf.Force, "force", false, "write into a non-empty prefix (objects already there are never deleted, but one named like an objbench key is overwritten)")
	fl.BoolVar(&tf.CreateBucket, "create-bucket", false, "create the bucket if it does not exist (it is left in place)")
	fl.StringVar(&tf.Upload, "upload", "auto", "upload style: auto (the SDK's default for the size), single (one request), resumable (GCS session + data), multipart (S3 multipart, Azure blocks)")
	fl.StringVar(&tf.PartSize, "part-size", "", "part or chunk size for multipart and chunked uploads (default: the SDK's)")
	fl.IntVar(&tf.PartConcurrency, "part-concurrency", 0, "parts in flight per multipart upload (default: the SDK's)")
	fl.StringVar(&tf.Client, "client", storage.ClientSDK, "S3 client library: sdk (aws-sdk-go-v2) or minio (minio-go, the client of MinIO's warp; its one-request PUTs over HTTP sign the payload's SHA-256, as the SDK does, not minio-go's 64 KiB signed chunks); both are traced alike")
	nameFields(fl, &tf.Settings)
	(*labFlags)(&tf.Lab).register(fl, true)
}

// labDefaults let a command choose the lab it runs on without a TARGET.
type labDefaults = target.LabDefaults

// openTarget resolves raw (a URL, "lab[:PROFILE]" or empty for the lab)
// with the command's flags and lab defaults: see target.Open.
func openTarget(ctx context.Context, raw string, tf *targetFlags, fs *pflag.FlagSet, def labDefaults, runID string) (*target.Env, error) {
	if !target.IsLab(raw) {
		if err := refuseLabFlags(fs, raw); err != nil {
			return nil, err
		}
	}
	cfg, err := tf.Config(raw, def, fs.Changed, runID)
	if err != nil {
		return nil, err
	}
	cfg.Log = verboseLog(ctx)
	return target.Open(ctx, cfg)
}

// atMostOneTarget accepts an optional TARGET argument (none: the lab).
func atMostOneTarget(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usage.Errorf("%s takes at most one TARGET, got %d: %s", command, len(args), strings.Join(args, " "))
		}
		return nil
	}
}

// atMostOneProfile accepts an optional PROFILE argument (lab, lab check).
func atMostOneProfile(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usage.Errorf("%s takes at most one PROFILE, got %q", command, strings.Join(args, " "))
		}
		return nil
	}
}

// targetArg is the optional argument, TARGET or PROFILE, or "" without
// one (the lab; its default profile).
func targetArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
