package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// SeriesStep is one step's results over time, for the series export.
type SeriesStep struct {
	Index  int
	Result document.Result
	Series []stats.Interval
}

// WriteSeriesCSV writes one row per step, op and interval: ops/s, bytes/s,
// latency percentiles in milliseconds, errors by class, late and dropped
// arrivals, in-flight and new connections. pandas reads it with
// pd.read_csv.
func WriteSeriesCSV(w io.Writer, steps []SeriesStep) error {
	classes := map[string]bool{}
	for _, s := range steps {
		for _, iv := range s.Series {
			for c := range iv.ErrorsByClass {
				classes[c] = true
			}
		}
	}
	var cls []string
	for c := range classes {
		cls = append(cls, c)
	}
	sort.Strings(cls)
	cw := csv.NewWriter(w)
	head := []string{"step", "workload", "op", "start_s", "end_s", "count", "errors", "ops_per_s", "bytes_per_s",
		"total_p50_ms", "total_p90_ms", "total_p99_ms", "total_max_ms", "ttfb_p50_ms", "ttfb_p99_ms",
		"late", "dropped", "in_flight", "new_conns"}
	for _, c := range cls {
		head = append(head, "errors_"+c)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(document.Finite(v), 'f', -1, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, s := range steps {
		for _, iv := range s.Series {
			t, tf := iv.TotalDist(), iv.TTFBDist()
			row := []string{strconv.Itoa(s.Index), s.Result.Workload, iv.Op, f(iv.StartS), f(iv.EndS), i(iv.Count), i(iv.Errors),
				f(iv.OpsPerS()), f(iv.BytesPerS()), f(t.P50), f(t.P90), f(t.P99), f(t.Max), f(tf.P50), f(tf.P99),
				i(iv.Late), i(iv.Dropped), i(iv.InFlight), i(iv.NewConns)}
			for _, c := range cls {
				row = append(row, i(iv.ErrorsByClass[c]))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteHdrLog writes the steps' interval histograms (total latency) in
// the HdrHistogram interval log format (version 1.3), one tagged line per
// step, op and interval, so that HdrHistogram's own tools (HistogramLogReader,
// hdr-plot) read them. Values are in microseconds; max is in milliseconds
// as the format's default unit ratio expects.
func WriteHdrLog(w io.Writer, startUnix float64, steps []SeriesStep) error {
	var b strings.Builder
	b.WriteString("#[objbench interval log: total latency in microseconds, tag step<index>-<op>]\n")
	b.WriteString("#[Histogram log format version 1.3]\n")
	fmt.Fprintf(&b, "#[StartTime: %.3f (seconds since epoch)]\n", startUnix)
	fmt.Fprintf(&b, "#[BaseTime: %.3f (seconds since epoch)]\n", startUnix)
	b.WriteString("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, s := range steps {
		for _, iv := range s.Series {
			d := iv.TotalDist()
			_, err := fmt.Fprintf(w, "Tag=step%d-%s,%.3f,%.3f,%.3f,%s\n", s.Index, iv.Op, iv.StartS, iv.EndS-iv.StartS, d.Max,
				iv.Total)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

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
			return fmt.Sprintf("%s %s c=%d", res.Op, FormatSize(res.SizeBytes), res.Concurrency)
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

// WriteSeries writes a saved run's results over time as CSV (format
// series) or an HdrHistogram interval log (hdrlog); a document other than
// a run's has none.
func WriteSeries(w io.Writer, sr *analysis.Run, format string) error {
	d, ok := sr.Doc.(*document.Document)
	if !ok {
		return fmt.Errorf("run %s is a %s run: %s exports run results over time; use --format json", sr.Meta.ID, sr.Meta.Command, format)
	}
	var steps []SeriesStep
	for _, s := range sr.Steps {
		b := s.Histograms[stats.SeriesMetric]
		if len(b) == 0 || s.Index >= len(d.Results) {
			continue
		}
		ivs, err := stats.DecodeSeries(b)
		if err != nil {
			return fmt.Errorf("step %d: %w", s.Index, err)
		}
		steps = append(steps, SeriesStep{Index: s.Index, Result: d.Results[s.Index], Series: ivs})
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].Index < steps[j].Index })
	if format == "hdrlog" {
		return WriteHdrLog(w, float64(sr.Meta.StartedAt.UnixNano())/1e9, steps)
	}
	return WriteSeriesCSV(w, steps)
}

// WriteSaved prints a saved run's text again: a run's or probe's summary
// (every table with detail), the strategies or startup tables, else its
// stored JSON document.
func WriteSaved(w io.Writer, sr *analysis.Run, detail bool) error {
	switch d := sr.Doc.(type) {
	case *document.Document:
		return WriteRunText(w, d, detail)
	case *document.StrategiesDocument:
		return WriteStrategiesText(w, d)
	case *document.StartupDocument:
		return WriteStartupText(w, d)
	case *document.ExplainDocument:
		return WriteExplainText(w, d)
	}
	_, err := fmt.Fprintf(w, "%s\n", sr.Meta.Document)
	return err
}
