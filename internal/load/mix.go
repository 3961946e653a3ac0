package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

// Mixed is the workload of --workload mixed: operations drawn from --mix
// on a working set of --keys objects prepared first.
const Mixed = "mixed"

// MixOps are the operations a mix may name.
var MixOps = []string{"get", "put", "list", "head", "delete"}

// Weighted is one entry of a weighted distribution.
type Weighted[T any] struct {
	Value  T
	Weight float64
}

// ParseMix reads --mix, e.g. "get=70,put=20,list=5,head=3,delete=2": known
// ops with weights in percent that add up to 100.
func ParseMix(s string) ([]Weighted[string], error) {
	var out []Weighted[string]
	seen := map[string]bool{}
	sum := 0.0
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return nil, fmt.Errorf("bad mix entry %q: use op=percent, e.g. get=70", part)
		}
		known := false
		for _, op := range MixOps {
			known = known || op == k
		}
		if !known {
			return nil, fmt.Errorf("unknown op %q in the mix: use %s", k, strings.Join(MixOps, ", "))
		}
		if seen[k] {
			return nil, fmt.Errorf("op %q named twice in the mix", k)
		}
		seen[k] = true
		w, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
		if err != nil || w < 0 || math.IsInf(w, 0) {
			return nil, fmt.Errorf("bad weight %q for %s: use a percentage", v, k)
		}
		sum += w
		if w > 0 {
			out = append(out, Weighted[string]{k, w})
		}
	}
	if math.Abs(sum-100) > 1e-9 {
		return nil, fmt.Errorf("mix weights add up to %g, not 100", sum)
	}
	return out, nil
}

// ParseSizeDist reads --sizes for a mix: "4KiB:50,1MiB:40,16MiB:10"
// (weights, any total) or a plain list "4KiB,1MiB" (equal weights).
func ParseSizeDist(s string) ([]Weighted[int64], error) {
	var out []Weighted[int64]
	sum := 0.0
	for _, part := range strings.Split(s, ",") {
		sz, w, hasW := strings.Cut(strings.TrimSpace(part), ":")
		n, err := units.ParseSize(sz)
		if err != nil {
			return nil, err
		}
		weight := 1.0
		if hasW {
			if weight, err = strconv.ParseFloat(strings.TrimSpace(w), 64); err != nil || weight < 0 || math.IsInf(weight, 0) {
				return nil, fmt.Errorf("bad weight %q for size %s: use a non-negative number", w, sz)
			}
		}
		sum += weight
		if weight > 0 {
			out = append(out, Weighted[int64]{n, weight})
		}
	}
	if sum <= 0 {
		return nil, fmt.Errorf("size distribution %q has no positive weight", s)
	}
	return out, nil
}

// KeyDist is key popularity over the working set: uniform, or zipf with
// exponent S (key k drawn with probability proportional to (k+1)^-S).
type KeyDist struct {
	Zipf bool
	S    float64
}

// ParseKeyDist reads --key-dist: "uniform" or "zipf:1.1" (exponent > 1).
func ParseKeyDist(s string) (KeyDist, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "uniform" || s == "" {
		return KeyDist{}, nil
	}
	if v, ok := strings.CutPrefix(s, "zipf:"); ok {
		e, err := strconv.ParseFloat(v, 64)
		if err != nil || !(e > 1) || math.IsInf(e, 0) {
			return KeyDist{}, fmt.Errorf("zipf exponent %q must be a number above 1, e.g. zipf:1.1", v)
		}
		return KeyDist{Zipf: true, S: e}, nil
	}
	return KeyDist{}, fmt.Errorf("unknown key distribution %q: use uniform or zipf:S, e.g. zipf:1.1", s)
}

// String prints the distribution as ParseKeyDist reads it.
func (d KeyDist) String() string {
	if d.Zipf {
		return "zipf:" + strconv.FormatFloat(d.S, 'g', -1, 64)
	}
	return "uniform"
}

// TopShare is the expected share of draws that go to the most popular key
// among n.
func (d KeyDist) TopShare(n int) float64 {
	if !d.Zipf {
		return 1 / float64(n)
	}
	h := 0.0
	for k := 1; k <= n; k++ {
		h += math.Pow(float64(k), -d.S)
	}
	return 1 / h
}

// MixConfig is a mixed workload.
type MixConfig struct {
	Ops   []Weighted[string]
	Sizes []Weighted[int64]
	Keys  int
	Dist  KeyDist
	Seed  uint64 // 0: random
	// Prefixes spreads the keys over that many prefixes (Options.Prefixes).
	Prefixes int
}

// Mix draws the operations of a mixed step. It is safe for concurrent
// use. Every key of the working set has a size of its own, drawn once from
// the size distribution, so a GET knows what it must read. Deletes remove
// working-set objects (all written by this run) and the next PUTs write
// them again; at most a tenth of the set is missing at once (the floor):
// a delete drawn at the floor becomes a PUT, and GETs and HEADs draw among
// the objects present (the floor leaves at least one): no GET or HEAD asks
// for an object the mix deleted.
type Mix struct {
	cfg    MixConfig
	prefix string
	opCDF  []float64
	szCDF  []float64

	mu      sync.Mutex
	rng     *rand.Rand
	zipf    *rand.Zipf
	absent  []int // deleted keys, to be written by the next PUTs
	missing []bool
	readers []int32 // operations in flight per key: never deleted under them
	gone    int     // keys missing (being deleted, or deleted and not yet written)
	slack   int
}

// NewMix prepares a mix for keys under prefix.
func NewMix(cfg MixConfig, prefix string) *Mix {
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	// The floor leaves at least one key present, for the reads to read.
	m := &Mix{cfg: cfg, prefix: prefix, rng: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)),
		missing: make([]bool, cfg.Keys), readers: make([]int32, cfg.Keys), slack: min(max(1, cfg.Keys/10), cfg.Keys-1)}
	m.opCDF = cdf(cfg.Ops)
	m.szCDF = cdf(cfg.Sizes)
	if cfg.Dist.Zipf {
		m.zipf = rand.NewZipf(m.rng, cfg.Dist.S, 1, uint64(cfg.Keys-1))
	}
	return m
}

func cdf[T any](ws []Weighted[T]) []float64 {
	out := make([]float64, len(ws))
	sum := 0.0
	for _, w := range ws {
		sum += w.Weight
	}
	acc := 0.0
	for i, w := range ws {
		acc += w.Weight / sum
		out[i] = acc
	}
	if len(out) > 0 {
		out[len(out)-1] = 1
	}
	return out
}

func pick(cdf []float64, u float64) int {
	return min(sort.SearchFloat64s(cdf, u), len(cdf)-1)
}

// Key is the name of working-set key k: under the prefix, or spread over
// the config's Prefixes.
func (m *Mix) Key(k int) string {
	return spreadPrefix(m.prefix, m.cfg.Prefixes, k) + "mix/" + strconv.Itoa(k)
}

// listPrefix is what a LIST op lists: the working set's prefix, or with
// keys spread the run's, above them all.
func (m *Mix) listPrefix() string {
	if m.cfg.Prefixes > 1 {
		return m.prefix
	}
	return m.prefix + "mix/"
}

// SizeOf is the size of working-set key k: the same at every write.
func (m *Mix) SizeOf(k int) int64 {
	u := math.Mod(float64(k)*0.6180339887498949+0.5, 1) // evenly spread over the keys
	return m.cfg.Sizes[pick(m.szCDF, u)].Value
}

// MeanSize is the size distribution's mean.
func (m *Mix) MeanSize() int64 {
	mean, sum := 0.0, 0.0
	for _, w := range m.cfg.Sizes {
		mean += float64(w.Value) * w.Weight
		sum += w.Weight
	}
	return int64(mean / sum)
}

// drawKey draws a key by popularity; the caller holds mu.
func (m *Mix) drawKey() int {
	if m.zipf != nil {
		return int(m.zipf.Uint64())
	}
	return m.rng.IntN(m.cfg.Keys)
}

// Next draws an operation: its op and working-set key. It is the pure part
// of Pick, for tests; the caller reports the end of the operation with
// done.
//
// A key being deleted, or deleted and not yet written again, is missing:
// GETs, HEADs and overwriting PUTs draw again. A key read or written is
// busy: deletes pass it by. So no operation meets a delete on its key.
func (m *Mix) Next() (op string, key int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	op = m.cfg.Ops[pick(m.opCDF, m.rng.Float64())].Value
	if op == "delete" && m.gone >= m.slack {
		op = "put" // at the floor: write back instead
	}
	if op == "delete" {
		for range 64 { // uniform among the present and idle
			if key = m.rng.IntN(m.cfg.Keys); !m.missing[key] && m.readers[key] == 0 {
				m.missing[key] = true
				m.gone++
				return op, key
			}
		}
		op = "put" // none found: write instead
	}
	if op == "put" {
		if n := len(m.absent); n > 0 {
			key = m.absent[n-1]
			m.absent = m.absent[:n-1]
			m.readers[key]++
			return op, key // missing until written
		}
	}
	if op == "list" {
		return op, 0
	}
	key = m.drawKey()
	for tries := 0; m.missing[key] && tries < 64; tries++ {
		key = m.drawKey()
	}
	if m.missing[key] { // the popular keys are missing: the next present one
		for d := 1; d < m.cfg.Keys && m.missing[key]; d++ {
			key = (key + 1) % m.cfg.Keys
		}
	}
	m.readers[key]++
	return op, key
}

// done reports the end of an operation Next drew.
func (m *Mix) done(op string, k int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch op {
	case "delete": // deleted or not, the next PUTs write it
		m.absent = append(m.absent, k)
		return
	case "list":
		return
	case "put":
		if ok && m.missing[k] {
			m.missing[k] = false
			m.gone--
		} else if !ok && m.missing[k] {
			m.absent = append(m.absent, k) // to be written again
		}
	}
	m.readers[k]--
}

// tracked wraps op's DoFunc to report its end to the mix.
func (m *Mix) tracked(op string, k int, do DoFunc) DoFunc {
	return func(ctx context.Context, b storage.Backend, key string) error {
		err := do(ctx, b, key)
		m.done(op, k, err == nil)
		return err
	}
}

// errListDone stops a LIST after its first page's worth of objects.
var errListDone = errors.New("list: page read")

// listPage is how many objects a LIST op reads: about one page of S3's.
const listPage = 1000

// Pick is the Step.Pick of a mixed step in session s.
func (m *Mix) Pick(s *Session) func(i int) Choice {
	return func(int) Choice {
		op, k := m.Next()
		key, size := m.Key(k), m.SizeOf(k)
		ch := Choice{Op: op, Key: key, Size: size}
		switch op {
		case "get":
			ch.Do = s.get(size)
		case "head":
			ch.Do, ch.Size = s.head(size), 0
		case "put":
			ch.Do = s.put(size)
		case "delete":
			ch.Do, ch.Size = s.delete, 0
		case "list":
			ch.Key, ch.Size = m.listPrefix(), 0
			ch.Do = func(ctx context.Context, b storage.Backend, prefix string) error {
				n := 0
				err := b.List(ctx, prefix, func(storage.ObjectInfo) error {
					if n++; n >= listPage {
						return errListDone
					}
					return nil
				})
				if errors.Is(err, errListDone) {
					return nil
				}
				return err
			}
		}
		ch.Do = m.tracked(op, k, ch.Do)
		return ch
	}
}

// Prepare writes the working set with the setup client.
func (m *Mix) Prepare(ctx context.Context, s *Session) error {
	keys := make([]string, m.cfg.Keys)
	for k := range keys {
		keys[k] = m.Key(k)
	}
	idx := make(map[string]int, len(keys))
	for k, key := range keys {
		idx[key] = k
	}
	return parallel(ctx, keys, func(ctx context.Context, key string) error {
		size := m.SizeOf(idx[key])
		s.Written.Add(key)
		if err := s.Setup.Put(ctx, key, BodyOf(size).Reader(), size); err != nil {
			return fmt.Errorf("preparing the working set: %w", err)
		}
		return nil
	})
}

// DefaultMixRequests bounds a mixed step given neither --requests nor
// --duration.
const DefaultMixRequests = 10000

func (s *Session) planMixed() []action {
	o := s.Opts
	cfg := o.Mix
	cfg.Prefixes = o.Prefixes
	m := NewMix(cfg, s.Prefix)
	n := o.Requests
	if n == 0 {
		n = DefaultMixRequests
		if o.Duration > 0 {
			n = math.MaxInt // bounded by the duration
		}
	}
	st := &Step{Workload: Mixed, Op: Mixed, Size: m.MeanSize(), Concurrency: max(o.MaxInflight, 1),
		Requests: n, Duration: o.Duration, Pick: m.Pick(s)}
	return []action{{prepare: func(ctx context.Context) error { return m.Prepare(ctx, s) }, step: st}}
}

// Each is the results a step adds to a run: its parts, one per op, for a
// mixed step (sharing its wall time, connections and kept samples), or
// itself. The pacer's start lags are the step's, so every part has them;
// the process's CPU cannot be told apart by op, so each part has its share
// by operations (every op of the step at the step's CPU per operation).
func (r *StepResult) Each() []*StepResult {
	if len(r.Parts) == 0 {
		return []*StepResult{r}
	}
	ops := r.Summary.Count + r.Summary.Errors
	for i, p := range r.Parts {
		p.Interrupted, p.FirstError = r.Interrupted, r.FirstError
		p.StartLag, p.StartLags = r.StartLag, r.StartLags
		if ops > 0 {
			share := float64(p.Summary.Count+p.Summary.Errors) / float64(ops)
			p.Summary.ClientCPU = time.Duration(float64(r.Summary.ClientCPU) * share)
			p.Summary.ClientRunWait = time.Duration(float64(r.Summary.ClientRunWait) * share)
		}
		if i == 0 {
			p.Kept, p.Sinks, p.Connections, p.TLSHandshakes = r.Kept, r.Sinks, r.Connections, r.TLSHandshakes
		}
	}
	return r.Parts
}
