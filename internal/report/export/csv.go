package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
)

// csvHeader is WriteCSV's header row.
func csvHeader() []string {
	head := []string{"run_id", "workload", "op", "size_bytes", "concurrency", "strategy", "count", "errors", "retries", "reconnects", "requests_per_op", "wall_s"}
	for _, m := range []string{"ttfb_ms", "total_ms"} {
		for _, p := range []string{"min", "p50", "p90", "p99", "p999", "max", "mean", "stddev"} {
			head = append(head, m+"_"+p)
		}
	}
	head = append(head, "mb_per_s_p50", "mb_per_s_p90", "mb_per_s_p99", "aggregate_mb_per_s", "reused_fraction",
		"first_count", "first_ttfb_ms_p50", "first_total_ms_p50", "first_reused_fraction",
		"later_count", "later_ttfb_ms_p50", "later_total_ms_p50", "later_reused_fraction")
	for _, ph := range nettrace.PhaseNames() {
		head = append(head, ph+"_ms_p50", ph+"_ms_p99")
	}
	return append(head, "error_classes")
}

// WriteCSV writes one row per result with flat columns, header first.
// Floats are rounded to 6 decimals (a nanosecond in ms) and never NaN;
// error_classes is "class:count" pairs joined by ";", sorted.
func WriteCSV(w io.Writer, d *document.Document) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader()); err != nil {
		return fmt.Errorf("write CSV report: %w", err)
	}
	f := func(v float64) string {
		return strconv.FormatFloat(math.Round(document.Finite(v)*1e6)/1e6, 'f', -1, 64)
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range d.Results {
		row := []string{d.RunID, r.Workload, r.Op, i(r.SizeBytes), strconv.Itoa(r.Concurrency), r.Strategy,
			i(r.Count), i(r.Errors), i(r.Retries), i(r.Reconnects), f(r.RequestsPerOp), f(r.WallS)}
		for _, dd := range []document.Dist{r.TTFBms, r.TotalMs} {
			row = append(row, f(dd.Min), f(dd.P50), f(dd.P90), f(dd.P99), f(dd.P999), f(dd.Max), f(dd.Mean), f(dd.Stddev))
		}
		row = append(row, f(r.MBps.P50), f(r.MBps.P90), f(r.MBps.P99), f(r.AggregateMBps), f(r.ReusedFraction))
		for _, g := range []document.Group{r.FirstRequest, r.LaterRequests} {
			row = append(row, i(g.Count), f(g.TTFBms.P50), f(g.TotalMs.P50), f(g.ReusedFraction))
		}
		for _, ph := range nettrace.PhaseNames() {
			row = append(row, f(r.PhasesMs[ph].P50), f(r.PhasesMs[ph].P99))
		}
		var classes []string
		for _, k := range report.ErrorClasses([]document.Result{r}) {
			classes = append(classes, k+":"+i(r.ErrorsByClass[k]))
		}
		row = append(row, strings.Join(classes, ";"))
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("write CSV report: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV report: %w", err)
	}
	return nil
}
