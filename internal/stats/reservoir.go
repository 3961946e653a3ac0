package stats

import (
	"math/rand/v2"
	"sync"

	"github.com/objbench/objbench/internal/nettrace"
)

// Kept is a raw sample kept for the results database, with its step.
type Kept struct {
	Step int
	nettrace.Sample
}

// Reservoir keeps a uniform random subset of at most Cap samples of a run
// (Algorithm R), so that memory stays bounded whatever the run's length.
// It is safe for concurrent use.
type Reservoir struct {
	mu   sync.Mutex
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
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	if len(r.kept) < r.cap {
		r.kept = append(r.kept, Kept{Step: step, Sample: *s})
		return
	}
	if j := r.rng.Int64N(r.seen); j < int64(r.cap) {
		r.kept[j] = Kept{Step: step, Sample: *s}
	}
}

// Kept returns the samples kept, and how many were offered.
func (r *Reservoir) Kept() ([]Kept, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.kept, r.seen
}
