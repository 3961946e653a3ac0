package results

import (
	"fmt"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// Partial is a run as far as its journal goes: the settings written
// first, the results of the steps that finished, and the step that was
// running as its intervals add up. The same pieces make a recovered run
// (read back from the database) and a shard's partial upload (kept in
// memory as the run goes), so both read alike. Not safe for concurrent
// use.
type Partial struct {
	settings document.Document
	results  []document.Result
	hists    []map[string][]byte
	// walls are the finished steps' wall times, by step (a mixed step's
	// parts share theirs); curWall is the running step's finished parts'.
	walls     map[int]float64
	curWall   float64
	step      int
	cur       *stepAcc
	intervals int
	lastEnd   time.Time
}

// stepAcc is the running step: its template (what the step is, with no
// measurement) and one accumulator per op, in the order ops appeared.
type stepAcc struct {
	tmpl document.Result
	ops  []string
	byOp map[string]*opAcc
}

// opAcc adds one op's intervals: counts, the two histograms, and the
// series bounded as the runner bounds it.
type opAcc struct {
	counts      stats.Interval
	ttfb, total *stats.Sum
	series      *stats.Series
	offered     float64
}

// NewPartial starts from the run's settings: the document as it is before
// any step (its Results are ignored).
func NewPartial(settings document.Document) *Partial {
	settings.Results = nil
	return &Partial{settings: settings, walls: map[int]float64{}}
}

// BeginStep starts step (counted from 1, as load.Session counts): tmpl
// says what it measures (workload, op, size, concurrency, strategy, the
// open-loop settings; SeriesIntervalS is the runner's interval).
func (p *Partial) BeginStep(step int, tmpl document.Result) {
	p.step, p.cur, p.curWall = step, &stepAcc{tmpl: tmpl, byOp: map[string]*opAcc{}}, 0
}

// Add adds one interval of the running step; offered is the operations the
// open-loop pacer had offered to this op by the interval's end, at the
// wall-clock time end.
func (p *Partial) Add(step int, iv stats.Interval, offered float64, end time.Time) error {
	if p.cur == nil || step != p.step {
		return fmt.Errorf("journal: interval of step %d outside its step (%d)", step, p.step)
	}
	a := p.cur.byOp[iv.Op]
	if a == nil {
		a = &opAcc{counts: stats.Interval{Op: iv.Op, StartS: iv.StartS}, ttfb: stats.NewSum(), total: stats.NewSum(), series: stats.NewSeries(0, 1)}
		p.cur.byOp[iv.Op] = a
		p.cur.ops = append(p.cur.ops, iv.Op)
	}
	if err := a.ttfb.AddEncoded(iv.TTFB); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := a.total.AddEncoded(iv.Total); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := a.series.Add(iv); err != nil {
		return err
	}
	a.counts.AddCounts(iv)
	a.counts.EndS = iv.EndS
	a.offered = offered
	p.intervals++
	if end.After(p.lastEnd) {
		p.lastEnd = end
	}
	return nil
}

// Result records a finished result of step (one per op of a mixed step):
// the running step's accumulator of that op is no longer needed.
func (p *Partial) Result(step int, r document.Result, hists map[string][]byte) {
	p.results = append(p.results, r)
	p.hists = append(p.hists, hists)
	if p.cur == nil || step != p.step {
		p.walls[step] = max(p.walls[step], r.WallS)
		return
	}
	p.curWall = max(p.curWall, r.WallS)
	if _, ok := p.cur.byOp[r.Op]; ok && len(p.cur.ops) > 1 {
		delete(p.cur.byOp, r.Op) // a mixed step's part: its other ops still run
		for i, op := range p.cur.ops {
			if op == r.Op {
				p.cur.ops = append(p.cur.ops[:i:i], p.cur.ops[i+1:]...)
				break
			}
		}
		return
	}
	p.walls[step], p.cur = p.curWall, nil
}

// Intervals is the number of intervals added.
func (p *Partial) Intervals() int { return p.intervals }

// Document is the run so far: the finished results, then the running
// step's ops as far as their intervals go, with the histograms to store
// (ttfb, total and series per result). The document is marked
// interrupted, cut short for cut's reason; cut's counts are filled in.
func (p *Partial) Document(reason string, now time.Time) (*document.Document, []map[string][]byte, error) {
	d := p.settings
	d.Results = append([]document.Result(nil), p.results...)
	hists := append([]map[string][]byte(nil), p.hists...)
	covers := 0.0
	for _, w := range p.walls {
		covers += w
	}
	if p.cur != nil {
		wall := p.curWall
		for _, op := range p.cur.ops {
			r, h, err := p.cur.byOp[op].result(op, p.cur.tmpl)
			if err != nil {
				return nil, nil, err
			}
			d.Results = append(d.Results, r)
			hists = append(hists, h)
			wall = max(wall, r.WallS)
		}
		covers += wall
	}
	cut := &document.CutShort{Reason: reason, CoversS: covers, Intervals: p.intervals, Steps: len(p.walls),
		RecoveredAt: now.UTC().Format(time.RFC3339)}
	if !p.lastEnd.IsZero() {
		cut.LastIntervalEnd = p.lastEnd.UTC().Format(time.RFC3339Nano)
	}
	d.Interrupted, d.CutShort = true, cut
	end := p.lastEnd
	if end.IsZero() {
		end = now
	}
	if s := d.Started(); !s.IsZero() {
		d.DurationS = max(end.Sub(s).Seconds(), 0)
	}
	return &d, hists, nil
}

// result is what one op of the running step measured, as far as its
// intervals go: the summary from the summed histograms (no phases, first
// request or uncorrected latency: intervals do not hold them).
func (a *opAcc) result(op string, tmpl document.Result) (document.Result, map[string][]byte, error) {
	wall := time.Duration(a.counts.EndS * float64(time.Second))
	sum := stats.NewRecorder().Summarize(0, wall)
	sum.Count, sum.Errors, sum.Bytes = a.counts.Count, a.counts.Errors, a.counts.Bytes
	sum.ErrorsByClass = a.counts.ErrorsByClass
	th, tt := a.ttfb.Histogram(), a.total.Histogram()
	sum.TTFBms, sum.TotalMs = th.Dist(), tt.Dist()
	size := tmpl.SizeBytes
	if op != "get" && op != "put" {
		size = 0
	}
	sum.MBps = stats.Throughput{P50: mbps(size, sum.TotalMs.P50), P90: mbps(size, sum.TotalMs.P90), P99: mbps(size, sum.TotalMs.P99)}
	if s := wall.Seconds(); s > 0 {
		sum.AggregateMBps = float64(sum.Bytes) / 1e6 / s
	}
	r := document.FromSummary(tmpl.Workload, op, tmpl.SizeBytes, tmpl.Concurrency, tmpl.Strategy, wall, sum)
	r.SeriesIntervalS = tmpl.SeriesIntervalS * float64(a.series.Ticks())
	if tmpl.OpenLoop != nil {
		o := *tmpl.OpenLoop
		o.OfferedOps, o.Late, o.Dropped = a.offered, a.counts.Late, a.counts.Dropped
		if s := wall.Seconds(); s > 0 {
			o.AchievedOpsPerS = float64(sum.Count+sum.Errors) / s
		}
		r.OpenLoop = &o
	}
	hists := map[string][]byte{}
	for name, h := range map[string]*stats.Histogram{"ttfb": th, "total": tt} {
		enc, err := h.Encode()
		if err != nil {
			return r, nil, err
		}
		hists[name] = []byte(enc)
	}
	if ivs := a.series.Intervals(); len(ivs) > 0 {
		b, err := stats.EncodeSeries(ivs)
		if err != nil {
			return r, nil, err
		}
		hists[stats.SeriesMetric] = b
	}
	return r, hists, nil
}

func mbps(size int64, ms float64) float64 {
	if size <= 0 || ms <= 0 {
		return 0
	}
	return float64(size) / 1e6 / (ms / 1000)
}
