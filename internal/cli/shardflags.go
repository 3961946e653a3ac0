package cli

import (
	"context"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
	"github.com/objbench/objbench/internal/target"
)

// shardFlags place a measuring command as one shard of a run on several
// machines (see internal/shard).
type shardFlags struct {
	f         shard.Flags
	startAt   string
	startIn   time.Duration
	resultsTo string
}

func (sf *shardFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&sf.f.Shard, "shard", "", "run shard I of N (0-based, e.g. 2/4): its share of --rate, --requests, --gets and the concurrency, keys under objbench/<run-id>/shard-I/ (default: from JOB_COMPLETION_INDEX, CLOUD_RUN_TASK_INDEX/COUNT or AWS_BATCH_JOB_ARRAY_INDEX/SIZE)")
	fl.IntVar(&sf.f.Shards, "shards", 0, "the shard count when the engine gives only an index (a Kubernetes Job's completions; or OBJBENCH_SHARDS)")
	fl.StringVar(&sf.f.RunID, "run-id", "", "the run id every shard shares (default: CLOUD_RUN_EXECUTION, OBJBENCH_JOB_NAME, AWS_BATCH_JOB_ID without its index; or OBJBENCH_RUN_ID)")
	fl.StringVar(&sf.startAt, "start-at", "", "begin the measured steps at this time (RFC 3339, e.g. 2026-11-23T18:30:00Z), so that every shard's window starts together")
	fl.DurationVar(&sf.startIn, "start-in", 0, "begin the measured steps this long from now; with shards, shard 0 resolves the time and writes it to --results-to for the others")
	fl.StringVar(&sf.resultsTo, "results-to", "", "write this shard's document with its histograms to s3://, gs://, az:// (a prefix) or a directory, at the end (a partial one if interrupted), for 'objbench merge'; checked writable before the load")
}

// spec resolves the shard from the flags and the environment; runID is
// the run id to use (the shared one, or a new one).
func (sf *shardFlags) spec() (shard.Spec, string, error) {
	s, err := shard.Resolve(sf.f, os.Getenv)
	if err != nil {
		return s, "", usagef("%w", err)
	}
	if s.RunID == "" {
		s.RunID = document.NewRunID()
	}
	return s, s.RunID, nil
}

// begin opens the results place, resolves the start and measures the clock
// (nil when the run is neither sharded nor writing its results).
func (sf *shardFlags) begin(ctx context.Context, s shard.Spec, env *target.Env) (*shard.Run, error) {
	opts := storage.Options{HTTPClient: &http.Client{}}
	open := func(ctx context.Context, t storage.Target) (storage.Backend, error) {
		o := opts
		if t.Scheme == env.Target.Scheme && env.Lab == nil {
			o.Endpoint, o.Region, o.Profile, o.Credentials = env.Options.Endpoint, env.Options.Region, env.Options.Profile, env.Options.Credentials
		}
		return providers.Open(ctx, t, o)
	}
	r, err := shard.Begin(ctx, shard.Config{Spec: s, ResultsTo: sf.resultsTo, Open: open, StartAt: sf.startAt, StartIn: sf.startIn,
		Setup: env.Setup.Backend, Prefix: env.Prefix})
	var ue shard.UsageError
	if errors.As(err, &ue) {
		return nil, usageError{ue.Err}
	}
	return r, err
}

// addTo adds the shard's options to the document's.
func (sf *shardFlags) addTo(m map[string]string, s shard.Spec) {
	if s.Active() {
		m["shard"] = s.String()
	}
	if sf.resultsTo != "" {
		m["results_to"] = sf.resultsTo
	}
}

// registerPlace registers only the flags that place a shard, for commands
// whose shards are not merged (strategies, probe): no results place, no
// common start.
func (sf *shardFlags) registerPlace(fl *pflag.FlagSet) {
	sf.register(fl)
	for _, n := range []string{"start-at", "start-in", "results-to"} {
		_ = fl.MarkHidden(n)
	}
}

// place resolves the shard of strategies or probe and gives it its share
// of counts and its own key space (a persistent pool's for probe).
func (sf *shardFlags) place(prefix *string, pool bool, counts ...*int) (shard.Spec, error) {
	if sf.resultsTo != "" || sf.startAt != "" || sf.startIn != 0 {
		return shard.Spec{}, usagef("--results-to, --start-at and --start-in are for run; merge reads run's shards only")
	}
	s, err := shard.Resolve(sf.f, os.Getenv)
	if err != nil || !s.Active() {
		if err != nil {
			err = usagef("%w", err)
		}
		return s, err
	}
	for _, c := range counts {
		*c = max(1, shard.Share(*c, s.Index, s.Count))
	}
	if pool {
		*prefix = s.PoolPrefix(*prefix)
	} else {
		*prefix = s.Prefix(*prefix)
	}
	return s, nil
}

// probeOptions are probe's round options for this shard: its share of
// --count, and a pool of its own.
func (sf *shardFlags) probeOptions(pf *probeFlags) (probe.Options, error) {
	o, err := pf.options()
	if err == nil {
		_, err = sf.place(&pf.Prefix, true, &o.Count)
	}
	return o, err
}
