package shard

import (
	"strings"

	"github.com/objbench/objbench/internal/load"
)

// Share is shard i's part of a total split over n shards: the first
// total%n shards take one more, so that the parts add up to the total.
func Share(total, i, n int) int {
	if n <= 0 {
		return total
	}
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// workers is a share of a concurrency: at least one worker, so a level
// below the shard count runs one worker per shard (the total is then the
// shard count, and the shard's document says so).
func workers(total, i, n int) int { return max(1, Share(total, i, n)) }

// ScaleRate is a rate profile's share for one of n shards: every rate
// divided by n, the shape (ramp, steps) unchanged.
func ScaleRate(p load.RateProfile, n int) load.RateProfile { return p.Divided(n) }

// Apply turns a run's options, given as totals across the shards, into
// this shard's: its share of the rate (--rate), of the concurrency
// (--max-inflight, --concurrency levels, --latency-concurrency) and of the
// operation counts that are totals (--requests, --gets). Other counts
// (pools, sizes) are per shard.
func (s Spec) Apply(o *load.Options) {
	if s.Count <= 1 {
		return
	}
	i, n := s.Index, s.Count
	if o.Requests > 0 {
		o.Requests = max(1, Share(o.Requests, i, n))
	}
	o.Gets = max(1, Share(o.Gets, i, n))
	o.LatencyConcurrency = workers(o.LatencyConcurrency, i, n)
	levels := make([]int, len(o.Levels))
	for k, l := range o.Levels {
		levels[k] = workers(l, i, n)
	}
	o.Levels = levels
	if o.MaxInflight > 0 {
		o.MaxInflight = workers(o.MaxInflight, i, n)
	}
	if pace := o.Pace; pace != nil {
		o.Pace = func() load.Pacer {
			p := pace()
			if ol, ok := p.(*load.OpenLoop); ok {
				ol.Profile = ScaleRate(ol.Profile, n)
			}
			return p
		}
	}
}

// Take gives a run's settings, given as totals across the shards, to
// this shard when the process runs as one: its share of the options
// (Apply) and of the open loop's rate (so that the offered operations a
// step reports are this shard's), and a key space of its own under
// *prefix (Prefix). An unsharded run keeps them as they are.
func (s Spec) Take(o *load.Options, open *load.OpenSettings, prefix *string) {
	if !s.Active() {
		return
	}
	s.Apply(o)
	open.DivideRate(s.Count)
	*prefix = s.Prefix(*prefix)
}

// LocalIDOr is the id of the document this process writes: the shard's
// own (LocalID), or newID's when it runs alone.
func (s Spec) LocalIDOr(newID func() string) string {
	if s.Active() {
		return s.LocalID()
	}
	return newID()
}

// Prefix is where the shard writes inside the target's prefix:
// <prefix>/shard-I/ under the user's --prefix, else
// objbench/<run-id>/shard-I/. Shards of one run never share a key.
func (s Spec) Prefix(userPrefix string) string {
	if p := strings.Trim(userPrefix, "/"); p != "" {
		return p + "/" + s.Name()
	}
	return "objbench/" + s.RunID + "/" + s.Name()
}

// PoolPrefix is a shard's persistent probe pool: <prefix>/shard-I under
// the user's --prefix, else objbench/probe/shard-I (kept across runs, as
// the unsharded pool objbench/probe/ is).
func (s Spec) PoolPrefix(userPrefix string) string {
	if p := strings.Trim(userPrefix, "/"); p != "" {
		return p + "/" + s.Name()
	}
	return "objbench/probe/" + s.Name()
}

// Pick is the shard's part of a list: every Count-th item from Index (the
// whole list when not sharded).
func (s Spec) Pick(xs []string) []string {
	if s.Count <= 1 {
		return xs
	}
	var out []string
	for i := s.Index; i < len(xs); i += s.Count {
		out = append(out, xs[i])
	}
	return out
}
