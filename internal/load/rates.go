package load

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
)

// RateStep is what the operations of one rate of an open loop's profile
// did: one of --rate's steps, or one segment of a ramp. An operation
// belongs to the step its intended start falls in, whenever it finished,
// so that a row is the load the schedule offered in that step and what
// came of it, but for its goodput (Settled: the successes that finished
// in its later half); analysis turns the rows into goodput and the knee.
type RateStep struct {
	// Offered is the profile's mean rate over the step, in operations per
	// second of the whole step (every op of a mix).
	Offered float64
	// From and To are the step's part of the schedule, from the step's
	// start; the last one ends with the step.
	From, To time.Duration
	// Count and Errors are the operations that succeeded and failed.
	Count, Errors int64
	// Requests are their HTTP exchanges, failed operations' included (at
	// least one per operation); Throttled the exchanges answered 429 or
	// 503 (or an operation that failed throttled without one); Retries
	// the exchanges the SDK tried again.
	Requests, Throttled, Retries int64
	// ThrottledOps are the operations that failed throttled.
	ThrottledOps int64
	// Bytes are the bytes the successful operations moved.
	Bytes int64
	// Settled is the later half of the step (from SettledFrom to To): the
	// successful operations that finished in it, whichever step intended
	// them (an SDK's retry carries one on), and their bytes,
	// measured apart so that a store's burst allowance at the start of a
	// step, spent in its first moments, does not count as its rate.
	SettledFrom                time.Duration
	SettledCount, SettledBytes int64
	// Total is the total latency of the successful operations, measured
	// from the step's latency origin.
	Total stats.Dist
	// ThrottledByPrefix counts throttled answers by the key's prefix (the
	// key up to its last "/"); at most maxPrefixes, the rest under "".
	ThrottledByPrefix map[string]int64
}

// maxRateSteps bounds the rows one step keeps (each op's row holds a
// histogram of about 27 KB, made when its first operation is recorded):
// a --rate list, or a ramp cut by --step, into more rows gets none.
const maxRateSteps = 100

// maxPrefixes bounds the prefixes a row counts by name.
const maxPrefixes = 64

// rampSegments is how many rows a ramp is cut into without --step.
const rampSegments = 10

// rateRows tallies a step's operations by the rate step of their intended
// start, per op. One lock for all workers: a record is a few additions,
// and a histogram per row, op and shard would cost megabytes on a large
// machine.
type rateRows struct {
	profile RateProfile
	starts  []time.Duration // each row's start in the schedule
	end     time.Duration   // the step's planned end
	mu      sync.Mutex
	byOp    map[string][]*rateTally
}

type rateTally struct {
	count, errors, requests, throttled, throttledOps, retries, bytes int64
	settledCount, settledBytes                                       int64
	total                                                            *stats.Durations
	prefixes                                                         map[string]int64
}

// newRateRows returns the rows of st when it is paced by steps or a ramp
// (nil otherwise: one rate is one row, the result itself).
func newRateRows(st *Step) *rateRows {
	o, ok := st.Pacer.(*OpenLoop)
	if !ok {
		return nil
	}
	p := o.Profile
	end := planned(st)
	var starts []time.Duration
	switch {
	case p.Ramp > 0 && len(p.Rates) == 2:
		seg := p.Step
		if seg <= 0 {
			seg = p.Ramp / rampSegments
		}
		for t := time.Duration(0); t < p.Ramp && (end <= 0 || t < end); t += seg {
			starts = append(starts, t)
		}
		if end <= 0 || end > p.Ramp {
			starts = append(starts, p.Ramp) // the rate held after the ramp
		}
	case p.Step > 0 && len(p.Rates) > 1:
		for k := range p.Rates {
			if t := time.Duration(k) * p.Step; k == 0 || end <= 0 || t < end {
				starts = append(starts, t)
			}
		}
	}
	if len(starts) < 2 || len(starts) > maxRateSteps {
		return nil
	}
	return &rateRows{profile: p, starts: starts, end: end, byOp: map[string][]*rateTally{}}
}

// row is the index of the row whose part of the schedule holds t.
func (rr *rateRows) row(t time.Duration) int {
	return max(sort.Search(len(rr.starts), func(i int) bool { return rr.starts[i] > t })-1, 0)
}

// bounds are row k's start and end; the last ends at the step's planned
// end, or at wall when the step ended sooner (wall 0: not ended yet).
func (rr *rateRows) bounds(k int, wall time.Duration) (from, to time.Duration) {
	from = rr.starts[k]
	if k+1 < len(rr.starts) {
		to = rr.starts[k+1]
	} else {
		to = rr.end
	}
	if wall > 0 && (to <= 0 || wall < to) {
		to = max(wall, from)
	}
	return from, to
}

// add records one finished operation: at (its intended start from the
// step's start) and done (its end, from the same start), s as the step
// reports it.
func (rr *rateRows) add(op string, at, done time.Duration, s *nettrace.Sample) {
	k := rr.row(at)
	throttled := int64(s.Throttled)
	failedThrottled := !s.OK() && s.ErrClass == string(storage.ClassThrottled)
	if failedThrottled && throttled == 0 {
		throttled = 1 // no HTTP seen (a backend without the transport): the answer itself
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	t := rr.tally(op, k)
	t.answers(s, int64(max(s.Requests, 1)), throttled)
	if !s.OK() {
		t.errors++
		if failedThrottled {
			t.throttledOps++
		}
		return
	}
	n := max(s.Size, s.Bytes)
	t.count++
	t.bytes += n
	t.total.Add(s.Total())
	// Goodput is what the store delivered while a step's rate was
	// offered: the success counts where it finished, in that step's
	// later half, whichever step intended it (an SDK's retry can carry it
	// a step or two further).
	d := rr.row(done)
	if from, to := rr.bounds(d, 0); done >= from+(to-from)/2 && (to <= from || done < to || d < len(rr.starts)-1) {
		g := rr.tally(op, d)
		g.settledCount++
		g.settledBytes += n
	}
}

// cut records the answers of an operation the step's end stopped (an
// SDK backing off between attempts): neither success nor error, but its
// throttled answers were the store's, and a last one throttled is one the
// SDK was waiting to try again (with no attempt left it would have
// returned the error instead).
func (rr *rateRows) cut(op string, at time.Duration, s *nettrace.Sample) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	t := rr.tally(op, rr.row(at))
	t.answers(s, int64(s.Requests), int64(s.Throttled))
	if s.Status == http.StatusTooManyRequests || s.Status == http.StatusServiceUnavailable {
		t.retries++
	}
}

// tally is op's row k, made on first use; rr.mu is held.
func (rr *rateRows) tally(op string, k int) *rateTally {
	rows := rr.byOp[op]
	if rows == nil {
		rows = make([]*rateTally, len(rr.starts))
		rr.byOp[op] = rows
	}
	t := rows[k]
	if t == nil {
		t = &rateTally{total: stats.NewDurations()}
		rows[k] = t
	}
	return t
}

// answers adds an operation's exchanges: requests of them, throttled
// answered slow down, and its retries.
func (t *rateTally) answers(s *nettrace.Sample, requests, throttled int64) {
	t.requests += requests
	t.retries += int64(s.Retries)
	t.throttled += throttled
	if throttled > 0 {
		p := keyPrefix(s.Key)
		if _, ok := t.prefixes[p]; !ok && len(t.prefixes) >= maxPrefixes {
			p = ""
		}
		if t.prefixes == nil {
			t.prefixes = map[string]int64{}
		}
		t.prefixes[p] += throttled
	}
}

// keyPrefix is the key up to and including its last "/": the prefix a
// store partitions by, as objbench writes keys.
func keyPrefix(key string) string {
	return key[:strings.LastIndexByte(key, '/')+1]
}

// result is op's rows once the step ended after wall: every row of the
// schedule up to the end, empty ones included (a rate at which nothing
// finished is a row too).
func (rr *rateRows) result(op string, wall time.Duration) []RateStep {
	if rr == nil {
		return nil
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rows := rr.byOp[op]
	if rows == nil {
		return nil
	}
	var out []RateStep
	for k, t := range rows {
		from, to := rr.bounds(k, wall)
		if k > 0 && from >= wall {
			break
		}
		r := RateStep{From: from, To: to, SettledFrom: from + (to-from)/2}
		if full := rr.end; k == len(rr.starts)-1 && full > 0 {
			r.SettledFrom = from + (full-from)/2 // as add judged it
		}
		if d := to - from; d > 0 {
			r.Offered = (rr.profile.Expected(to) - rr.profile.Expected(from)) / d.Seconds()
		} else {
			r.Offered = rr.profile.RateAt(from)
		}
		if t != nil {
			r.Count, r.Errors, r.Requests, r.Throttled, r.ThrottledOps = t.count, t.errors, t.requests, t.throttled, t.throttledOps
			r.Retries, r.Bytes, r.SettledCount, r.SettledBytes = t.retries, t.bytes, t.settledCount, t.settledBytes
			r.Total = t.total.Dist()
			if len(t.prefixes) > 0 {
				r.ThrottledByPrefix = make(map[string]int64, len(t.prefixes))
				for p, n := range t.prefixes {
					r.ThrottledByPrefix[p] = n
				}
			}
		}
		out = append(out, r)
	}
	return out
}
