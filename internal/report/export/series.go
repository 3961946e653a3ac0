package export

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
