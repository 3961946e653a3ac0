package merge

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// mergeSeries adds the shards' intervals of one result, interval by
// interval: the shards started together (--start-at), so interval i of
// each covers the same wall-clock time, and its histograms are added.
// Times are since the first shard's start. It also returns each shard's
// own series on that time axis, for per-shard plots.
func mergeSeries(ws []window, first time.Time) ([]stats.Interval, [][]stats.Interval, error) {
	var out []stats.Interval
	perShard := make([][]stats.Interval, len(ws))
	n := 0
	for _, w := range ws {
		n = max(n, len(w.data.Series))
	}
	ttfb, total := stats.NewSum(), stats.NewSum()
	for i := range n {
		ttfb.Reset()
		total.Reset()
		var m stats.Interval
		m.StartS, m.EndS = math.Inf(1), math.Inf(-1)
		for j, w := range ws {
			if i >= len(w.data.Series) {
				continue
			}
			iv := w.data.Series[i]
			shift := w.start.Sub(first).Seconds()
			m.Op = iv.Op
			m.StartS, m.EndS = min(m.StartS, iv.StartS+shift), max(m.EndS, iv.EndS+shift)
			m.Count += iv.Count
			m.Errors += iv.Errors
			m.Bytes += iv.Bytes
			m.Late += iv.Late
			m.Dropped += iv.Dropped
			m.InFlight += iv.InFlight
			m.NewConns += iv.NewConns
			for c, k := range iv.ErrorsByClass {
				if m.ErrorsByClass == nil {
					m.ErrorsByClass = map[string]int64{}
				}
				m.ErrorsByClass[c] += k
			}
			if err := ttfb.AddEncoded(iv.TTFB); err != nil {
				return nil, nil, fmt.Errorf("shard %d interval %d: %w", w.shard, i, err)
			}
			if err := total.AddEncoded(iv.Total); err != nil {
				return nil, nil, fmt.Errorf("shard %d interval %d: %w", w.shard, i, err)
			}
			own := iv
			own.StartS, own.EndS = iv.StartS+shift, iv.EndS+shift
			perShard[j] = append(perShard[j], own)
		}
		var err error
		if m.TTFB, err = ttfb.Histogram().Encode(); err != nil {
			return nil, nil, err
		}
		if m.Total, err = total.Histogram().Encode(); err != nil {
			return nil, nil, err
		}
		out = append(out, m)
	}
	return out, perShard, nil
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
		if len(w.data.Series) == 0 {
			f := share(w.start, w.end)
			ops += f * float64(w.res.Count+w.res.Errors)
			bytes += f * w.res.AggregateMBps * 1e6 * w.res.WallS
			continue
		}
		for _, iv := range w.data.Series {
			a := w.start.Add(time.Duration(iv.StartS * float64(time.Second)))
			b := w.start.Add(time.Duration(iv.EndS * float64(time.Second)))
			f := share(a, b)
			ops += f * float64(iv.Count+iv.Errors)
			bytes += f * float64(iv.Bytes)
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
