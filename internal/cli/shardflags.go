package cli

import (
	"context"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/journal"
	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/usage"
)

// shardFlags place a measuring command as one shard of a run on several
// machines (see internal/shard).
type shardFlags struct {
	f shard.Flags
	// journal holds --results-every, how often the journal of a run
	// writing --results-to uploads its document so far; run adds
	// --no-journal to it.
	journal journal.Options
}

func (sf *shardFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&sf.f.Shard, "shard", "", "run shard I of N (0-based, e.g. 2/4): its share of --rate, --requests, --gets and the concurrency, keys under objbench/<run-id>/shard-I/ (default: from JOB_COMPLETION_INDEX, CLOUD_RUN_TASK_INDEX/COUNT or AWS_BATCH_JOB_ARRAY_INDEX/SIZE)")
	fl.IntVar(&sf.f.Shards, "shards", 0, "the shard count when the engine gives only an index (a Kubernetes Job's completions; or OBJBENCH_SHARDS)")
	fl.StringVar(&sf.f.RunID, "run-id", "", "the run id every shard shares (default: CLOUD_RUN_EXECUTION, OBJBENCH_JOB_NAME, AWS_BATCH_JOB_ID without its index; or OBJBENCH_RUN_ID)")
	fl.StringVar(&sf.f.StartAt, "start-at", "", "begin the measured steps at this time (RFC 3339, e.g. 2026-11-23T18:30:00Z), so that every shard's window starts together")
	fl.DurationVar(&sf.f.StartIn, "start-in", 0, "begin the measured steps this long from now; with shards, shard 0 resolves the time and writes it to --results-to for the others")
	fl.StringVar(&sf.f.ResultsTo, "results-to", "", "write this shard's document with its histograms to s3://, gs://, az:// (a prefix) or a directory, at the end (a partial one if interrupted), for 'objbench merge'; checked writable before the load")
	fl.DurationVar(&sf.journal.ResultsEvery, "results-every", time.Minute, "with --results-to: also upload the document so far this often (rounded to whole --interval), so that a shard killed by its engine is merged as partial with what it measured; 0: only at the end")
	nameFields(fl, &sf.f)
	nameFields(fl, &sf.journal)
}

// spec resolves run's shard from the flags and the environment; runID is
// the run id to use (the shared one, or a new one).
func (sf *shardFlags) spec() (shard.Spec, string, error) {
	s, err := shard.ResolveRun(sf.f, os.Getenv, document.NewRunID)
	return s, s.RunID, usage.Wrap(err)
}

// begin opens the results place, resolves the start and measures the clock
// (nil when the run is neither sharded nor writing its results).
func (sf *shardFlags) begin(ctx context.Context, s shard.Spec, env *target.Env) (*shard.Run, error) {
	c := sf.f.Configure(s)
	c.Open, c.Setup, c.Prefix = env.OpenOther, env.Setup.Backend, env.Prefix
	return shard.Begin(ctx, c) // its mistakes in the settings are usage.Errors
}

// addTo adds the shard's options to the document's.
func (sf *shardFlags) addTo(m map[string]string, s shard.Spec) { sf.f.AddTo(m, s) }

// registerPlace registers only the flags that place a shard, for commands
// whose shards are not merged (strategies, probe).
func (sf *shardFlags) registerPlace(fl *pflag.FlagSet) {
	sf.register(fl)
	for _, n := range []string{"start-at", "start-in", "results-to", "results-every"} {
		_ = fl.MarkHidden(n)
	}
}

// place resolves the shard of strategies or probe (see shard.Flags.Place).
func (sf *shardFlags) place(prefix *string, pool bool, counts ...*int) (shard.Spec, error) {
	s, err := sf.f.Place(os.Getenv, prefix, pool, counts...)
	return s, usage.Wrap(err)
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
