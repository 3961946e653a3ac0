package journal

import (
	"time"

	"github.com/objbench/objbench/internal/usage"
)

// Options say how a run is journaled, as its command line asks: checked
// once before any work starts, then given to the session (Start's on and
// every).
type Options struct {
	// Off turns the journal off (run --no-journal: bench/journal.sh
	// measures the journal's cost with it; a run killed then loses
	// everything).
	Off bool
	// ResultsEvery is how often a shard writing its results elsewhere
	// uploads its document so far (rounded to whole intervals), so that a
	// shard killed by its engine is merged as partial; 0: only at the end.
	ResultsEvery time.Duration
}

// Check refuses what the journal cannot do; its error is the user's to
// fix, naming the field.
func (o Options) Check() error {
	if o.ResultsEvery < 0 {
		return usage.Fieldf("{ResultsEvery} must not be negative, got %s", o.ResultsEvery)
	}
	return nil
}

// On says whether the run is journaled: the journal is in the results
// database, so a run that is not saved (noSave) has none, nor one whose
// journal is Off.
func (o Options) On(noSave bool) bool { return !noSave && !o.Off }
