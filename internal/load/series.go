package load

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/stats"
)

// seriesOf collects a step's intervals per op while it runs, each op's
// bounded (stats.Series: past stats.MaxIntervals, intervals merge pairwise).
type seriesOf struct {
	mu   sync.Mutex
	byOp map[string]*stats.Series
}

// startSeries drains the shards' interval recorders every r.Interval (and
// once at the end), so that the intervals add up to the step exactly.
func (r *Runner) startSeries(st *Step, shards []*shard, start time.Time, inflight, peak *atomic.Int64,
	conns func() int64) (stop func(), out *seriesOf) {
	out = &seriesOf{byOp: map[string]*stats.Series{}}
	ticks := 1 // per interval kept: as many as fit the planned step in half of stats.MaxIntervals
	if r.Interval > 0 {
		ticks = stats.TicksFor(float64(planned(st)) / float64(r.Interval))
	}
	var last time.Duration
	var lastConns int64
	tick := func(final bool) {
		now := time.Since(start)
		p := peak.Swap(inflight.Load())
		c := conns()
		var ivs []stats.Interval
		out.mu.Lock()
		for _, op := range opNames(shards, st.Op) {
			s := out.byOp[op]
			if s == nil {
				s = stats.NewSeries(0, ticks)
				out.byOp[op] = s
			}
			iv := s.Drain(op, last, now, intervalRecorders(shards, op))
			iv.InFlight, iv.NewConns = p, c-lastConns
			if final && iv.Count+iv.Errors+iv.Late+iv.Dropped == 0 && s.Len() > 0 {
				continue // the step ended at an interval's end: nothing left over
			}
			_ = s.Add(iv) // merges only encodings Drain made: cannot fail
			ivs = append(ivs, iv)
		}
		out.mu.Unlock()
		last, lastConns = now, c
		if r.OnInterval != nil && len(ivs) > 0 {
			r.OnInterval(st, ivs)
		}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var c <-chan time.Time
		if r.Interval > 0 {
			t := time.NewTicker(r.Interval)
			defer t.Stop()
			c = t.C
		}
		for {
			select {
			case <-quit:
				tick(true)
				return
			case <-c:
				tick(false)
			}
		}
	}()
	return func() { close(quit); <-finished }, out
}

// planned is how long st is to last: its Duration, or in open loop the
// time its last operation is due, whichever comes first (0: not known, a
// closed loop bounded by its count).
func planned(st *Step) time.Duration {
	d := st.Duration
	if o, ok := st.Pacer.(*OpenLoop); ok && len(o.Profile.Rates) > 0 && st.Requests > 0 {
		// A count too large for the schedule (math.MaxInt: bounded by the
		// duration) is due past what a Duration holds: no bound.
		if due := o.Profile.at(float64(st.Requests)); due > 0 && (d <= 0 || due < d) {
			d = due
		}
	}
	return d
}

// results merges the shards into the step's result: one per op, as parts
// when the step is a mix.
func (r *Runner) results(st *Step, shards []*shard, series *seriesOf, wall time.Duration, rates *rateRows) *StepResult {
	names := opNames(shards, st.Op)
	one := func(step *Step, op string) *StepResult {
		m := mergeOp(shards, op)
		hists, _ := m.rec.Histograms() // encoding in-memory histograms cannot fail
		if b, err := m.rec.Encode(); err == nil {
			hists[stats.RecorderMetric] = b // for merging shards exactly
		}
		res := &StepResult{Step: step, Histograms: hists, Summary: m.rec.Summarize(step.Moved(), wall), Wall: wall,
			Late: m.late, Dropped: m.dropped, RateSteps: rates.result(op, wall)}
		if m.alt != nil {
			u := m.alt.Summarize(step.Moved(), wall)
			res.Uncorrected = &u
			if alt, err := m.alt.Histograms(); err == nil {
				hists["ttfb_uncorrected"], hists["total_uncorrected"] = alt["ttfb"], alt["total"]
			}
		}
		series.mu.Lock()
		if s := series.byOp[op]; s != nil {
			res.Series, res.SeriesInterval = s.Intervals(), time.Duration(s.Ticks())*r.Interval
		}
		series.mu.Unlock()
		if b, err := stats.EncodeSeries(res.Series); err == nil && len(res.Series) > 0 {
			hists[stats.SeriesMetric] = b
		}
		return res
	}
	if st.Pick == nil {
		if len(names) == 0 {
			names = []string{st.Op}
		}
		return one(st, names[0])
	}
	res := &StepResult{Step: st, Wall: wall, Summary: stats.NewRecorder().Summarize(0, wall)}
	for _, op := range names {
		part := *st
		part.Op, part.Pick = op, nil
		pr := one(&part, op)
		res.Parts = append(res.Parts, pr)
		res.Summary.Count += pr.Summary.Count
		res.Summary.Errors += pr.Summary.Errors
		res.Late += pr.Late
		res.Dropped += pr.Dropped
	}
	return res
}
