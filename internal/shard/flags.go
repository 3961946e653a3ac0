package shard

import "github.com/objbench/objbench/internal/usage"

// ResolveRun is Resolve for run: the shard and its run id, a new one from
// newID when no shard shares one. Errors are the user's to fix.
func ResolveRun(f Flags, getenv func(string) string, newID func() string) (Spec, error) {
	s, err := Resolve(f, getenv)
	if err == nil && s.RunID == "" {
		s.RunID = newID()
	}
	return s, err
}

// Configure is Begin's configuration for this shard from its flags; the
// caller adds the target's Open, Setup and Prefix.
func (f Flags) Configure(s Spec) Config {
	return Config{Spec: s, ResultsTo: f.ResultsTo, StartAt: f.StartAt, StartIn: f.StartIn}
}

// ErrRunOnly refuses the flags of a merged run on strategies and probe,
// whose shards are not merged.
var ErrRunOnly = usage.Fieldf("{ResultsTo}, {StartAt} and {StartIn} are for run; merge reads run's shards only")

// Place resolves the shard of strategies or probe and gives it its share
// of counts and its own key space in *prefix (a persistent pool's when
// pool). Errors are the user's to fix.
func (f Flags) Place(getenv func(string) string, prefix *string, pool bool, counts ...*int) (Spec, error) {
	if f.ResultsTo != "" || f.StartAt != "" || f.StartIn != 0 {
		return Spec{}, ErrRunOnly
	}
	s, err := Resolve(f, getenv)
	if err != nil || !s.Active() {
		return s, err
	}
	for _, c := range counts {
		*c = max(1, Share(*c, s.Index, s.Count))
	}
	if pool {
		*prefix = s.PoolPrefix(*prefix)
	} else {
		*prefix = s.Prefix(*prefix)
	}
	return s, nil
}

// AddTo adds the shard's settings to a document's options.
func (f Flags) AddTo(m map[string]string, s Spec) {
	if s.Active() {
		m["shard"] = s.String()
	}
	if f.ResultsTo != "" {
		m["results_to"] = f.ResultsTo
	}
}
