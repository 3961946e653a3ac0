package stats

import (
	"math/rand/v2"

	"github.com/objbench/objbench/internal/nettrace"
)

// Kept is a raw sample kept for the results database, with its step.
type Kept struct {
	Step int
	nettrace.Sample
}

// Reservoir keeps a uniform random subset of at most Cap samples of a run
// (Algorithm R), so that memory stays bounded whatever the run's length.
// It takes no lock: each worker fills one of its own, and they are merged
// after the step (Merge), as histograms are.
type Reservoir struct {
	cap  int
	seen int64
	kept []Kept
	rng  *rand.Rand
}

// NewReservoir keeps up to capacity samples; 0 keeps none.
func NewReservoir(capacity int) *Reservoir {
	return &Reservoir{cap: max(capacity, 0), rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
}

// Add offers one sample of step.
func (r *Reservoir) Add(step int, s *nettrace.Sample) {
	if r.cap == 0 {
		return
	}
	r.seen++
	if len(r.kept) < r.cap {
		r.kept = append(r.kept, Kept{Step: step, Sample: *s})
		return
	}
	if j := r.rng.Int64N(r.seen); j < int64(r.cap) {
		r.kept[j] = Kept{Step: step, Sample: *s}
	}
}

// Cap is how many samples r keeps at most.
func (r *Reservoir) Cap() int { return r.cap }

// Kept returns the samples kept, and how many were offered.
func (r *Reservoir) Kept() ([]Kept, int64) {
	return r.kept, r.seen
}

// Merge adds o's samples to r as if every sample o was offered had been
// offered to r, marking them as of step: r stays a uniform subset of all
// the samples offered to either, as long as each side kept at least its
// share of the merged subset. Merge works in place: o's samples are
// reordered, and o should not be used after.
func (r *Reservoir) Merge(o *Reservoir, step int) {
	if o == nil || o.seen == 0 || r.cap == 0 {
		return
	}
	// How many of the merged subset come from each side is hypergeometric:
	// draw slot by slot, from a side in proportion to what it has not yet
	// given. Each side's kept samples are a uniform subset of what it saw,
	// so taking a random few of them is a uniform draw from that side.
	total := r.seen + o.seen
	n := min(int64(r.cap), total)
	restR, restO := r.seen, o.seen
	var fromR, fromO int
	for range n {
		// A side whose kept samples are all taken gives no more (a worker
		// that saw more than its share of a step): the other side fills in.
		switch {
		case fromR == len(r.kept):
			restO--
			fromO++
			continue
		case fromO == len(o.kept):
			restR--
			fromR++
			continue
		}
		if r.rng.Int64N(restR+restO) < restR {
			restR--
			fromR++
		} else {
			restO--
			fromO++
		}
	}
	// In place: a random fromR of r's stay, then a random fromO of o's.
	mine := shuffleFront(r.kept, fromR, r.rng)
	theirs := shuffleFront(o.kept, fromO, r.rng)
	kept := r.kept[:mine]
	for _, k := range o.kept[:theirs] {
		k.Step = step
		kept = append(kept, k)
	}
	r.kept, r.seen = kept, total
}

// shuffleFront moves n of ks, chosen at random, to its front (a partial
// Fisher-Yates shuffle, in place) and returns how many it moved.
func shuffleFront(ks []Kept, n int, rng *rand.Rand) int {
	n = min(n, len(ks))
	for i := range n {
		j := i + rng.IntN(len(ks)-i)
		ks[i], ks[j] = ks[j], ks[i]
	}
	return n
}
