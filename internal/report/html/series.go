package html

import (
	"fmt"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
)

// overTimeFigures draws a run's results over time, one panel each: ops/s,
// p50 and p99, errors, and in-flight operations. Only steps with a series
// worth drawing: mixed or open-loop steps, or at least ten intervals.
func overTimeFigures(runs []HTMLRun) []figure {
	var out []figure
	for ri, r := range runs {
		doc, ok := r.Doc.(*document.Document)
		if !ok || len(r.Series) == 0 {
			continue
		}
		var idx []int
		for i := range doc.Results {
			res := doc.Results[i]
			if s := r.Series[i]; len(s) > 0 && (res.Workload == "mixed" || res.OpenLoop != nil || len(s) >= 10) {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		label := func(i int) string {
			res := doc.Results[i]
			if res.Workload == "mixed" {
				return res.Op
			}
			return fmt.Sprintf("%s %s c=%d", res.Op, report.FormatSize(res.SizeBytes), res.Concurrency)
		}
		x := func() axis { return axis{label: "seconds since the step's start"} }
		ops := chart{title: r.Label + ": operations per second", x: x(), y: axis{label: "ops/s"}}
		lat := chart{title: r.Label + ": total latency p50 and p99 (dashed)", x: x(), y: axis{label: "ms", log: true}}
		errs := chart{title: r.Label + ": errors per interval", x: x(), y: axis{label: "errors"}}
		infl := chart{title: r.Label + ": operations in flight (most in each interval)", x: x(), y: axis{label: "in flight"}}
		for k, i := range idx {
			var o, p50, p99, e, f [][2]float64
			for _, iv := range r.Series[i] {
				t := iv.EndS
				d := iv.TotalDist()
				o = append(o, [2]float64{t, iv.OpsPerS()})
				if iv.Count > 0 {
					p50 = append(p50, [2]float64{t, d.P50})
					p99 = append(p99, [2]float64{t, d.P99})
				}
				e = append(e, [2]float64{t, float64(iv.Errors)})
				f = append(f, [2]float64{t, float64(iv.InFlight)})
			}
			c := ri + k
			ops.series = append(ops.series, series{name: label(i), points: o, color: c})
			lat.series = append(lat.series, series{name: label(i) + " p50", points: p50, color: c},
				series{name: label(i) + " p99", points: p99, color: c, dashed: true})
			errs.series = append(errs.series, series{name: label(i), points: e, color: c})
			if k == 0 || doc.Results[i].Workload != "mixed" { // a mix's ops share one in-flight count
				infl.series = append(infl.series, series{name: label(i), points: f, color: c})
			}
		}
		out = append(out,
			figure{"Operations completed per second in each interval, by op.", ops.svg()},
			figure{"Total latency per interval: p50 (solid) and p99 (dashed), in milliseconds; from the intended start on open-loop steps.", lat.svg()},
			figure{"Failed operations per interval, by op.", errs.svg()},
			figure{"The most operations in flight at once in each interval.", infl.svg()})
		out = append(out, shardFigures(r, idx, label)...)
	}
	return out
}

// shardFigures draws, for a merged run, each shard's operations per second
// beside the merged total, one panel per result: a straggler or a shard
// that fell behind its share shows as a line apart.
func shardFigures(r HTMLRun, idx []int, label func(int) string) []figure {
	var out []figure
	for _, i := range idx {
		rates := r.ShardRates[i]
		if len(rates) == 0 {
			continue
		}
		c := chart{title: r.Label + ": " + label(i) + " operations per second, merged and by shard", x: axis{label: "seconds since the first shard's start"}, y: axis{label: "ops/s"}}
		var total [][2]float64
		for _, iv := range r.Series[i] {
			total = append(total, [2]float64{iv.EndS, iv.OpsPerS()})
		}
		c.series = append(c.series, series{name: "merged", points: total, color: 0})
		for k, sr := range rates {
			var pts [][2]float64
			for j := range sr.OpsPerS {
				pts = append(pts, [2]float64{sr.EndS[j], sr.OpsPerS[j]})
			}
			c.series = append(c.series, series{name: fmt.Sprintf("shard %d", sr.Shard), points: pts, color: 1 + k, dashed: true})
		}
		out = append(out, figure{"Operations per second in each interval: the merged run (solid) and each shard (dashed).", c.svg()})
	}
	return out
}
