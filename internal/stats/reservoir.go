package stats

import (
	"iter"
	"math"
	"math/rand/v2"

	"github.com/objbench/objbench/internal/nettrace"
)

// Kept is a raw sample kept for the results database, with its step.
type Kept struct {
	Step int
	nettrace.Sample
}

// KeptSeq is a run's kept samples, one at a time (see Reservoir.All).
type KeptSeq = iter.Seq[Kept]

// Reservoir keeps a uniform random subset of at most Cap samples of a run
// (Algorithm R), so that memory stays bounded whatever the run's length.
// It takes no lock: each worker fills one of its own, and they are merged
// after the step (Merge), as histograms are.
type Reservoir struct {
	cap  int
	seen int64
	kept []packed
	rng  *rand.Rand
	// arena is the array of the reservoirs Split made, on the first of them.
	arena []packed
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
		r.kept = append(r.kept, packOf(step, s))
		return
	}
	if j := r.rng.Int64N(r.seen); j < int64(r.cap) {
		r.kept[j] = packOf(step, s)
	}
}

// Cap is how many samples r keeps at most.
func (r *Reservoir) Cap() int { return r.cap }

// Len is how many samples r kept; Seen how many it was offered.
func (r *Reservoir) Len() int { return len(r.kept) }

// Seen is how many samples r was offered.
func (r *Reservoir) Seen() int64 { return r.seen }

// At returns kept sample i (0 <= i < Len).
func (r *Reservoir) At(i int) Kept { return r.kept[i].unpack() }

// All yields the kept samples in order, each unpacked only as it is
// yielded: a run's samples are never all in their wide form at once.
func (r *Reservoir) All() KeptSeq {
	return func(yield func(Kept) bool) {
		for i := range r.kept {
			if !yield(r.kept[i].unpack()) {
				return
			}
		}
	}
}

// Split makes n reservoirs (one per worker) as windows of one array, so
// that Gather merges them where they are: a step keeps its samples once,
// not once per worker and once merged. Each window is 1/16 larger than
// capacity/n, so that workers which saw a little more than others still
// kept their share of a uniform subset of capacity.
func Split(capacity, n int) []*Reservoir {
	n = max(n, 1)
	share := (max(capacity, 0) + n - 1) / n
	share += (share + 15) / 16
	arena := make([]packed, share*n)
	rs := make([]*Reservoir, n)
	for w := range rs {
		rs[w] = NewReservoir(share)
		rs[w].kept = arena[w*share : w*share : (w+1)*share]
	}
	rs[0].arena = arena
	return rs
}

// Gather merges the reservoirs Split made into a uniform subset of at
// most capacity of every sample they were offered, at the front of their
// array; they should not be used after. A uniform subset takes from each
// worker in proportion to what it saw (drawn as a hypergeometric), and a
// worker gives at most what it kept, so a worker that saw far more than
// the others makes the subset smaller rather than biased.
func Gather(rs []*Reservoir, capacity int) *Reservoir {
	out := &Reservoir{cap: max(capacity, 0), rng: rs[0].rng}
	rest := make([]int64, len(rs))
	for w, r := range rs {
		out.seen += r.seen
		rest[w] = r.seen
	}
	n := min(int64(out.cap), out.seen)
	for _, r := range rs {
		if k := float64(len(r.kept)); r.seen > int64(k) {
			// Its expected share, three standard deviations under what it
			// kept, so that a draw past it (clipped: a bias) is rare.
			n = min(n, int64(max(k-3*math.Sqrt(k), 0)*float64(out.seen)/float64(r.seen)))
		}
	}
	take := make([]int, len(rs))
	left := out.seen
	for range n {
		x := out.rng.Int64N(left)
		for w := range rest {
			if x < rest[w] {
				take[w]++
				rest[w]--
				break
			}
			x -= rest[w]
		}
		left--
	}
	// Window w starts at or after the end of what the earlier ones gave:
	// copy (a memmove) gathers them at the front in place.
	arena, at := rs[0].arena, 0
	for w, r := range rs {
		k := shuffleFront(r.kept, take[w], out.rng)
		at += copy(arena[at:], r.kept[:k])
		r.kept, r.seen = nil, 0
	}
	rs[0].arena = nil
	if at > 0 {
		out.kept = arena[:at]
	}
	return out
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
	// In place: a random fromR of r's and a random fromO of o's move to the
	// front of their arrays, then one side's join the other's, in whichever
	// array has room for both (an empty r adopts o's array): no allocation.
	mine := shuffleFront(r.kept, fromR, r.rng)
	theirs := shuffleFront(o.kept, fromO, r.rng)
	for i := range theirs {
		o.kept[i].setStep(step)
	}
	if need := mine + theirs; need > cap(r.kept) && need <= cap(o.kept) {
		r.kept = append(o.kept[:theirs], r.kept[:mine]...)
	} else {
		r.kept = append(r.kept[:mine], o.kept[:theirs]...)
	}
	r.seen = total
	o.kept, o.seen = nil, 0
}

// shuffleFront moves n of ks, chosen at random, to its front (a partial
// Fisher-Yates shuffle, in place) and returns how many it moved.
func shuffleFront(ks []packed, n int, rng *rand.Rand) int {
	n = min(n, len(ks))
	for i := range n {
		j := i + rng.IntN(len(ks)-i)
		ks[i], ks[j] = ks[j], ks[i]
	}
	return n
}
