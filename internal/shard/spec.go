// Package shard runs one part of a benchmark that several machines run
// together, as the task of a job engine people already operate (a
// Kubernetes Indexed Job, a Cloud Run Job, an AWS Batch array job): which
// shard this process is, the run id the shards share, its share of the
// rate and concurrency, its own key space, when the shards start, and
// where each writes its results for `objbench merge`. No coordinator: the
// engine starts the shards, the results place joins them.
package shard

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/usage"
)

// Engines a shard's index and count can come from.
const (
	EngineFlag       = "flag"       // --shard I/N
	EngineKubernetes = "kubernetes" // JOB_COMPLETION_INDEX (Indexed Job)
	EngineCloudRun   = "cloudrun"   // CLOUD_RUN_TASK_INDEX/COUNT
	EngineBatch      = "batch"      // AWS_BATCH_JOB_ARRAY_INDEX/SIZE
)

// Environment variables read to place a shard.
const (
	EnvK8sIndex       = "JOB_COMPLETION_INDEX"
	EnvCloudRunIndex  = "CLOUD_RUN_TASK_INDEX"
	EnvCloudRunCount  = "CLOUD_RUN_TASK_COUNT"
	EnvCloudRunExec   = "CLOUD_RUN_EXECUTION"
	EnvBatchIndex     = "AWS_BATCH_JOB_ARRAY_INDEX"
	EnvBatchSize      = "AWS_BATCH_JOB_ARRAY_SIZE"
	EnvBatchJobID     = "AWS_BATCH_JOB_ID"
	EnvShards         = "OBJBENCH_SHARDS"   // --shards, e.g. from a Job's completions
	EnvRunID          = "OBJBENCH_RUN_ID"   // --run-id
	EnvJobName        = "OBJBENCH_JOB_NAME" // the Kubernetes Job's name (downward API, our manifest)
	EnvJobCompletions = "JOB_COMPLETIONS"   // the Job's completions, when a manifest exposes them
)

// Flags are the command-line values that place a shard.
type Flags struct {
	// Shard is --shard I/N ("" to read the engine's environment).
	Shard string
	// Shards is --shards N: the count when the engine gives only an index.
	Shards int
	// RunID is --run-id, shared by every shard of a run.
	RunID string
	// StartAt and StartIn are --start-at and --start-in: when the measured
	// steps begin (run only).
	StartAt string
	StartIn time.Duration
	// ResultsTo is --results-to: where the shard's document goes (run only).
	ResultsTo string
}

// Spec is one shard of a run: shard Index (0-based) of Count, in run RunID.
// The zero Spec is an unsharded run.
type Spec struct {
	Index, Count int
	RunID        string
	// Engine is where Index and Count came from (EngineFlag, ...).
	Engine string
}

// Active reports whether the process runs as a shard.
func (s Spec) Active() bool { return s.Count > 0 }

// String is "I/N".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// LocalID is the id a shard's own run is saved under in a local results
// database, apart from the merged run: RUN-shard-I.
func (s Spec) LocalID() string { return s.RunID + "-" + s.Name() }

// Name is the shard's name in keys and result files: "shard-I".
func (s Spec) Name() string { return "shard-" + strconv.Itoa(s.Index) }

// Resolve places this process from flags and the environment (getenv,
// os.Getenv in production). With neither --shard nor an engine's index it
// returns the zero Spec. Every error is a usage error: one line naming the
// flag or variable to fix.
func Resolve(f Flags, getenv func(string) string) (Spec, error) {
	var s Spec
	if f.Shards < 0 {
		return s, usage.Fieldf("{Shards} must be a positive count, got %d", f.Shards)
	}
	envCount := func(names ...string) (int, string, error) {
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				c, err := strconv.Atoi(v)
				if err != nil || c <= 0 {
					return 0, n, fmt.Errorf("%s=%q: want a positive count", n, v)
				}
				return c, n, nil
			}
		}
		return 0, "", nil
	}
	switch {
	case f.Shard != "":
		i, n, err := parseShard(f.Shard)
		if err != nil {
			return s, err
		}
		s = Spec{Index: i, Count: n, Engine: EngineFlag}
		if f.Shards > 0 && f.Shards != n {
			return s, usage.Fieldf("{Shard} %s and {Shards} %d disagree on the count", f.Shard, f.Shards)
		}
	case getenv(EnvK8sIndex) != "":
		i, err := envIndex(EnvK8sIndex, getenv(EnvK8sIndex))
		if err != nil {
			return s, err
		}
		n := f.Shards
		if n == 0 {
			if n, _, err = envCount(EnvShards, EnvJobCompletions); err != nil {
				return s, err
			}
		}
		if n == 0 {
			return s, usage.Fieldf("%s=%d is set but not the shard count: pass {Shards} N (the Job's completions) or set %s", EnvK8sIndex, i, EnvShards)
		}
		s = Spec{Index: i, Count: n, Engine: EngineKubernetes}
	case getenv(EnvCloudRunIndex) != "":
		i, err := envIndex(EnvCloudRunIndex, getenv(EnvCloudRunIndex))
		if err != nil {
			return s, err
		}
		n, _, err := envCount(EnvCloudRunCount)
		if err != nil {
			return s, err
		}
		if n == 0 {
			n = f.Shards
		}
		if n == 0 {
			return s, usage.Fieldf("%s=%d is set but not %s: pass {Shards} N (the job's --tasks)", EnvCloudRunIndex, i, EnvCloudRunCount)
		}
		s = Spec{Index: i, Count: n, Engine: EngineCloudRun}
	case getenv(EnvBatchIndex) != "":
		i, err := envIndex(EnvBatchIndex, getenv(EnvBatchIndex))
		if err != nil {
			return s, err
		}
		n := f.Shards
		if n == 0 {
			if n, _, err = envCount(EnvBatchSize, EnvShards); err != nil {
				return s, err
			}
		}
		if n == 0 {
			return s, usage.Fieldf("%s=%d is set but not the array size: pass {Shards} N (arrayProperties.size) or set %s", EnvBatchIndex, i, EnvShards)
		}
		s = Spec{Index: i, Count: n, Engine: EngineBatch}
	default:
		if f.Shards > 0 {
			return s, usage.Fieldf("{Shards} %d needs a shard index: {Shard} I/%d, or an engine's (%s, %s, %s)", f.Shards, f.Shards, EnvK8sIndex, EnvCloudRunIndex, EnvBatchIndex)
		}
		if f.RunID != "" {
			if err := CheckRunID(f.RunID); err != nil {
				return s, err
			}
		}
		return Spec{RunID: f.RunID}, nil
	}
	if s.Index >= s.Count {
		return s, fmt.Errorf("shard index %d is out of range for %d shards (0 to %d)", s.Index, s.Count, s.Count-1)
	}
	id, err := runID(f.RunID, s.Engine, getenv)
	if err != nil {
		return s, err
	}
	s.RunID = id
	return s, nil
}

// parseShard reads Shard, I/N (0 <= I < N).
func parseShard(v string) (int, int, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(v), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return 0, 0, usage.Fieldf("{Shard} %q: use I/N, the 0-based shard index and the shard count, e.g. 0/4", v)
	case n <= 0:
		return 0, 0, usage.Fieldf("{Shard} %q: the shard count must be at least 1", v)
	case i < 0 || i >= n:
		return 0, 0, usage.Fieldf("{Shard} %q: the index must be 0 to %d for %d shards", v, n-1, n)
	}
	return i, n, nil
}

func envIndex(name, v string) (int, error) {
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s=%q: want a shard index of 0 or more", name, v)
	}
	return i, nil
}

// runID is the id every shard of a run shares: --run-id, else the
// engine's (the Cloud Run execution, the Kubernetes Job's name, the AWS
// Batch array job's id without its index).
func runID(flag, engine string, getenv func(string) string) (string, error) {
	id := flag
	if id == "" {
		id = getenv(EnvRunID)
	}
	if id == "" {
		switch engine {
		case EngineCloudRun:
			id = getenv(EnvCloudRunExec)
		case EngineKubernetes:
			id = getenv(EnvJobName)
		case EngineBatch:
			id, _, _ = strings.Cut(getenv(EnvBatchJobID), ":") // "parent:index" for a child
		}
	}
	if id == "" {
		return "", usage.Fieldf("shards of one run need the same run id: pass {RunID} ID to every shard (or set %s)", EnvRunID)
	}
	return id, CheckRunID(id)
}

// CheckRunID accepts a run id usable in keys and file names.
func CheckRunID(id string) error {
	if len(id) > 128 {
		return usage.Fieldf("{RunID} %q is longer than 128 characters", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return usage.Fieldf("{RunID} %q: use letters, digits, '-', '_' and '.' only", id)
		}
	}
	if id == "." || id == ".." {
		return usage.Fieldf("{RunID} %q is not a name", id)
	}
	return nil
}
