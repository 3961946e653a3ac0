package merge

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// ShardRate is one shard's rate over time (see document.ShardRate).
type ShardRate = document.ShardRate

// ShardRatesMetric is where a merged result's per-shard rates are stored.
const ShardRatesMetric = document.ShardRatesMetric

// mergeSeries adds the shards' intervals of one result, interval by
// interval: the shards started together (--start-at), so interval i of
// each covers the same wall-clock time, and its histograms are added. A
// shard whose series kept finer intervals than another's (a step bounded
// by count that ended either side of stats.MaxIntervals intervals) has
// them grouped into the coarsest, width seconds (seriesWidthOf): both are
// whole numbers of ticks from the step's start (powers of two,
// stats.Series). Times are since the first shard's start.
func mergeSeries(ws []window, first time.Time, sums []stats.Interval, width float64) ([]stats.Interval, []ShardRate, error) {
	n := 0
	var rates []ShardRate
	group := make([]int, len(ws)) // shard intervals per merged one
	for j, w := range ws {
		c := w.data.Series
		if c == nil {
			continue
		}
		f, err := coarser(seriesWidth(w.res, c), width)
		if err != nil {
			return nil, nil, fmt.Errorf("shard %d: %w", w.shard, err)
		}
		group[j] = f
		n = max(n, (c.Len()+f-1)/f)
		shift := w.start.Sub(first).Seconds()
		r := ShardRate{Shard: w.shard}
		for i := range c.Len() {
			r.StartS, r.EndS = append(r.StartS, c.StartS[i]+shift), append(r.EndS, c.EndS[i]+shift)
			r.OpsPerS = append(r.OpsPerS, perS(float64(c.Count[i]+c.Errors[i]), time.Duration((c.EndS[i]-c.StartS[i])*float64(time.Second))))
		}
		rates = append(rates, r)
	}
	out := make([]stats.Interval, n)
	copy(out, sums)
	for i := range out {
		out[i].StartS, out[i].EndS = math.Inf(1), math.Inf(-1)
	}
	for j, w := range ws {
		c := w.data.Series
		if c == nil {
			continue
		}
		shift := w.start.Sub(first).Seconds()
		for i := range c.Len() {
			o := &out[i/group[j]]
			o.StartS, o.EndS = min(o.StartS, c.StartS[i]+shift), max(o.EndS, c.EndS[i]+shift)
		}
	}
	// Interval by interval, one metric at a time: a reader per shard
	// streams its column, one dense sum adds them.
	sum := stats.NewSum()
	for _, metric := range []string{"ttfb", "total"} {
		readers := make([]*stats.ColumnReader, len(ws))
		for j, w := range ws {
			if c := w.data.Series; c != nil {
				col := c.TTFB
				if metric == "total" {
					col = c.Total
				}
				r, err := stats.NewColumnReader(col, c.Len())
				if err != nil {
					closeAll(readers)
					return nil, nil, fmt.Errorf("shard %d %s: %w", w.shard, metric, err)
				}
				readers[j] = r
			}
		}
		for i := range out {
			sum.Reset()
			for j, w := range ws {
				if readers[j] == nil {
					continue
				}
				for si := i * group[j]; si < min((i+1)*group[j], w.data.Series.Len()); si++ {
					p, err := readers[j].Next()
					if err == nil {
						err = sum.AddPayload(p)
					}
					if err != nil {
						closeAll(readers)
						return nil, nil, fmt.Errorf("shard %d interval %d %s: %w", w.shard, si, metric, err)
					}
				}
			}
			enc, err := sum.EncodeFast()
			if err != nil {
				closeAll(readers)
				return nil, nil, err
			}
			if metric == "ttfb" {
				out[i].TTFB = enc
			} else {
				out[i].Total = enc
			}
		}
		closeAll(readers)
	}
	return out, rates, nil
}

func closeAll(rs []*stats.ColumnReader) {
	for _, r := range rs {
		if r != nil {
			r.Close()
		}
	}
}

// addCounts adds a shard's interval counts into acc (grown as needed),
// f of the shard's intervals into each of acc's (coarsen). The shards ran
// at once: their operations in flight add up.
func addCounts(acc []stats.Interval, c *stats.Columns, f int) []stats.Interval {
	own := make([]stats.Interval, c.Len())
	for i := range own {
		own[i] = stats.Interval{Op: c.Op, Count: c.Count[i], Errors: c.Errors[i], Bytes: c.Bytes[i], Late: c.Late[i],
			Dropped: c.Dropped[i], InFlight: c.InFlight[i], NewConns: c.NewConns[i]}
	}
	for _, e := range c.ErrorsByClass {
		own[e.I].ErrorsByClass = e.ByClass
	}
	if f > 1 {
		own = coarsen(own, f)
	}
	for len(acc) < len(own) {
		acc = append(acc, stats.Interval{Op: c.Op})
	}
	for i, o := range own {
		inFlight := acc[i].InFlight + o.InFlight
		acc[i].AddCounts(o)
		acc[i].InFlight = inFlight
	}
	return acc
}

// coarsen groups f adjacent intervals' counts into one, as stats.Series
// merges its intervals.
func coarsen(ivs []stats.Interval, f int) []stats.Interval {
	out := make([]stats.Interval, (len(ivs)+f-1)/f)
	for i, iv := range ivs {
		out[i/f].Op = iv.Op
		out[i/f].AddCounts(iv)
	}
	return out
}

// seriesWidth is the length in seconds of a result's series intervals: as
// the result says, else (documents older than series_interval_s) the
// first interval's.
func seriesWidth(r *document.Result, c *stats.Columns) float64 {
	if r != nil && r.SeriesIntervalS > 0 {
		return r.SeriesIntervalS
	}
	if c != nil && c.Len() > 0 {
		return c.EndS[0] - c.StartS[0]
	}
	return 0
}

// seriesWidthOf is the coarsest series interval among ws, which the
// merged series has.
func seriesWidthOf(ws []window) float64 {
	width := 0.0
	for _, w := range ws {
		if c := w.data.Series; c != nil {
			width = max(width, seriesWidth(w.res, c))
		}
	}
	return width
}

// coarser is how many intervals of fine seconds make one of coarse: 1 or
// more, an error when fine does not divide coarse.
func coarser(fine, coarse float64) (int, error) {
	if fine <= 0 || coarse <= fine {
		return 1, nil
	}
	r := coarse / fine
	f := int(math.Round(r))
	if math.Abs(r-float64(f)) > 0.01*r {
		return 0, fmt.Errorf("series intervals of %g s and %g s do not divide: the shards ran different builds or ticks", fine, coarse)
	}
	return f, nil
}

// inWindow counts the operations and bytes the shards' intervals put in
// [from, to], an interval that straddles an edge pro rata. A shard without
// intervals counts its whole result pro rata.
func inWindow(ws []window, from, to time.Time) (ops, bytes float64) {
	share := func(a, b time.Time) float64 {
		d := b.Sub(a)
		if d <= 0 {
			return 0
		}
		o := minT(b, to).Sub(maxT(a, from))
		return max(0, float64(o)/float64(d))
	}
	for _, w := range ws {
		c := w.data.Series
		if c == nil {
			f := share(w.start, w.end)
			ops += f * float64(w.res.Count+w.res.Errors)
			bytes += f * w.res.AggregateMBps * 1e6 * w.res.WallS
			continue
		}
		for i := range c.Len() {
			a := w.start.Add(time.Duration(c.StartS[i] * float64(time.Second)))
			b := w.start.Add(time.Duration(c.EndS[i] * float64(time.Second)))
			f := share(a, b)
			ops += f * float64(c.Count[i]+c.Errors[i])
			bytes += f * float64(c.Bytes[i])
		}
	}
	return ops, bytes
}

// shardRows are the per-shard rows of a result: rate, quantiles, how late
// each started and ended. A straggler started later than the first shard,
// or ended later than the median end, by more than a tolerance (5% of the
// median wall time, at least 500 ms): it stretches the whole window past
// the common one. Spread is (max - min) / mean of the shards' ops/s.
func shardRows(ws []window, first time.Time) ([]document.ShardStep, []int, float64) {
	ends := make([]time.Time, len(ws))
	walls := make([]float64, len(ws))
	for i, w := range ws {
		ends[i], walls[i] = w.end, w.end.Sub(w.start).Seconds()
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	slices.Sort(walls)
	medEnd, medWall := ends[len(ends)/2], walls[len(walls)/2]
	tol := max(500*time.Millisecond, time.Duration(0.05*medWall*float64(time.Second)))
	var rows []document.ShardStep
	var stragglers []int
	var rates []float64
	for _, w := range ws {
		x := w.res
		row := document.ShardStep{Shard: w.shard, Count: x.Count, Errors: x.Errors, OpsPerS: perS(float64(x.Count+x.Errors), w.end.Sub(w.start)),
			P50ms: x.TotalMs.P50, P99ms: x.TotalMs.P99, Partial: w.partial,
			StartLateMs: float64(w.start.Sub(first)) / 1e6, EndLateMs: float64(w.end.Sub(medEnd)) / 1e6}
		if w.start.Sub(first) > tol || w.end.Sub(medEnd) > tol {
			row.Straggler = true
			stragglers = append(stragglers, w.shard)
		}
		rates = append(rates, row.OpsPerS)
		rows = append(rows, row)
	}
	var sum float64
	for _, r := range rates {
		sum += r
	}
	spread := 0.0
	if mean := sum / float64(len(rates)); mean > 0 {
		spread = (slices.Max(rates) - slices.Min(rates)) / mean * 100
	}
	return rows, stragglers, spread
}

// lacks says in sentences what the merged result is missing.
func lacks(in []Input, info *document.MergeInfo, steps int) []string {
	var out []string
	if len(info.Missing) > 0 {
		out = append(out, fmt.Sprintf("shards %s wrote no document: their share of the load (%d of %d shards) is not in the result, and the rates are those of %d shards",
			ints(info.Missing), len(info.Missing), info.Expected, len(info.Merged)))
	}
	for _, x := range in {
		f := x.File
		if !f.Interrupted && f.Shard.Failed == "" {
			continue
		}
		why := "was interrupted"
		if f.Shard.Failed != "" {
			why = "failed (" + f.Shard.Failed + ")"
		}
		out = append(out, fmt.Sprintf("shard %d %s after %d of %d results: its later results and the rest of its last one are missing",
			f.Shard.Index, why, len(f.Results), steps))
	}
	return out
}

func ints(v []int) string {
	s := ""
	for i, n := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(n)
	}
	return s
}
