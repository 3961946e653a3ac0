package report

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes one row per result with flat columns, header first.
func WriteCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	head := []string{"run_id", "workload", "op", "size_bytes", "concurrency", "strategy", "count", "errors", "retries", "reconnects", "requests_per_op", "wall_s"}
	for _, m := range []string{"ttfb_ms", "total_ms"} {
		for _, p := range []string{"min", "p50", "p90", "p99", "p999", "max", "mean", "stddev"} {
			head = append(head, m+"_"+p)
		}
	}
	head = append(head, "mb_per_s_p50", "mb_per_s_p90", "mb_per_s_p99", "aggregate_mb_per_s", "reused_fraction",
		"first_ttfb_ms_p50", "first_reused_fraction", "later_ttfb_ms_p50", "later_reused_fraction")
	phaseNames := []string{"dns", "connect", "tls", "send", "wait100", "wait", "recv"}
	for _, ph := range phaseNames {
		head = append(head, ph+"_ms_p50", ph+"_ms_p99")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(sanitize(v), 'f', -1, 64) }
	for _, r := range d.Results {
		row := []string{d.RunID, r.Workload, r.Op, strconv.FormatInt(r.SizeBytes, 10), strconv.Itoa(r.Concurrency), r.Strategy,
			strconv.FormatInt(r.Count, 10), strconv.FormatInt(r.Errors, 10), strconv.FormatInt(r.Retries, 10), strconv.FormatInt(r.Reconnects, 10), f(r.RequestsPerOp), f(r.WallS)}
		for _, dd := range []Dist{r.TTFBms, r.TotalMs} {
			row = append(row, f(dd.Min), f(dd.P50), f(dd.P90), f(dd.P99), f(dd.P999), f(dd.Max), f(dd.Mean), f(dd.Stddev))
		}
		row = append(row, f(r.MBps.P50), f(r.MBps.P90), f(r.MBps.P99), f(r.AggregateMBps), f(r.ReusedFraction),
			f(r.FirstRequest.TTFBms.P50), f(r.FirstRequest.ReusedFraction), f(r.LaterRequests.TTFBms.P50), f(r.LaterRequests.ReusedFraction))
		for _, ph := range phaseNames {
			row = append(row, f(r.PhasesMs[ph].P50), f(r.PhasesMs[ph].P99))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
