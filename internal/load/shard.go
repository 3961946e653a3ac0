package load

import (
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
)

// Choice is one operation of a mixed step: which op, on which key, of what
// size, and how to do it.
type Choice struct {
	Op   string
	Key  string
	Size int64
	Do   DoFunc
}

// Latency origins of an open-loop step (--latency-from).
const (
	FromIntended = "intended"
	FromActual   = "actual"
)

// opRecs are the recorders of one op in one shard.
type opRecs struct {
	rec *stats.Recorder // latency from the origin the step reports
	// alt is latency from the other origin (open loop only): the
	// uncorrected figure beside the corrected one, or the reverse.
	alt           *stats.Recorder
	iv            *stats.IntervalRecorder
	late, dropped int64
}

// shard is the recorders that a few workers share. A Recorder's
// histograms take about half a megabyte, so a step with many workers (an
// open-loop step with a large --max-inflight, a mix of five ops) would
// cost a megabyte and more per worker; workers share one shard per CPU
// instead, each under a lock that only its few workers take.
type shard struct {
	mu  sync.Mutex
	ops map[string]*opRecs
	lag *stats.LagRecorder // open loop: actual send - intended start
}

func (sh *shard) op(name string, open bool) *opRecs {
	o := sh.ops[name]
	if o == nil {
		o = &opRecs{rec: stats.NewRecorder(), iv: stats.NewIntervalRecorder()}
		if open {
			o.alt = stats.NewRecorder()
		}
		sh.ops[name] = o
	}
	return o
}

// shardCount is how many shards a step of conc workers records into.
func shardCount(conc int) int { return max(1, min(conc, runtime.GOMAXPROCS(0))) }

func newShards(conc int) []*shard {
	out := make([]*shard, shardCount(conc))
	for i := range out {
		out[i] = &shard{ops: map[string]*opRecs{}}
	}
	return out
}

// record adds one finished operation: in open loop, s measured from its
// actual send and, when intended is set, a copy measured from its intended
// start; the step's origin goes to rec and the intervals, the other to alt.
func (sh *shard) record(st *Step, op string, s *nettrace.Sample, intended time.Time, late bool) *nettrace.Sample {
	open := !intended.IsZero()
	primary, other := s, (*nettrace.Sample)(nil)
	if open {
		corrected := *s
		corrected.Start = intended
		primary, other = &corrected, s
		if st.LatencyFrom == FromActual {
			primary, other = s, &corrected
		}
	}
	sh.mu.Lock()
	o := sh.op(op, open)
	if open {
		if sh.lag == nil {
			sh.lag = stats.NewLagRecorder()
		}
		sh.lag.Add(s.Start.Sub(intended))
	}
	o.rec.Add(primary)
	if other != nil {
		if o.alt == nil {
			o.alt = stats.NewRecorder()
		}
		o.alt.Add(other)
	}
	if late {
		o.late++
	}
	sh.mu.Unlock()
	o.iv.Add(primary)
	if late {
		o.iv.Late()
	}
	return primary
}

func (sh *shard) drop(op string, open bool) {
	sh.mu.Lock()
	o := sh.op(op, open)
	o.dropped++
	sh.mu.Unlock()
	o.iv.Dropped()
}

// opNames lists the ops recorded in any shard, sorted, with first (the
// step's own op) first when present.
func opNames(shards []*shard, first string) []string {
	seen := map[string]bool{}
	var out []string
	for _, sh := range shards {
		sh.mu.Lock()
		for n := range sh.ops {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		sh.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == first) != (out[j] == first) {
			return out[i] == first
		}
		return out[i] < out[j]
	})
	return out
}

// intervalRecorders are every shard's interval recorders of op.
func intervalRecorders(shards []*shard, op string) []*stats.IntervalRecorder {
	var out []*stats.IntervalRecorder
	for _, sh := range shards {
		sh.mu.Lock()
		if o := sh.ops[op]; o != nil {
			out = append(out, o.iv)
		}
		sh.mu.Unlock()
	}
	return out
}

// merged is one op's recorders merged across shards.
type merged struct {
	rec, alt      *stats.Recorder
	late, dropped int64
}

func mergeOp(shards []*shard, op string) merged {
	var m merged
	m.rec = stats.NewRecorder()
	for _, sh := range shards {
		o := sh.ops[op]
		if o == nil {
			continue
		}
		m.rec.Merge(o.rec)
		if o.alt != nil {
			if m.alt == nil {
				m.alt = stats.NewRecorder()
			}
			m.alt.Merge(o.alt)
		}
		m.late += o.late
		m.dropped += o.dropped
	}
	return m
}

// lagDist is the step's start lags across shards (zero in closed loop).
func lagDist(shards []*shard) stats.Dist {
	all := stats.NewLagRecorder()
	for _, sh := range shards {
		if sh.lag != nil {
			all.Merge(sh.lag)
		}
	}
	return all.Dist()
}
