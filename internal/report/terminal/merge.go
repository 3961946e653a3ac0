package terminal

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
)

// WriteMerge writes how a merged run was made: the shards merged, missing
// and partial, what the result lacks, and per result the throughput over
// the common and the whole window with one row per shard.
func WriteMerge(w io.Writer, d *document.Document) error {
	m := d.Merge
	if m == nil {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "\nmerged %d of %d shards (%s)", len(m.Merged), m.Expected, joinInts(m.Merged))
	if len(m.Missing) > 0 {
		fmt.Fprintf(ew, "; missing: %s", joinInts(m.Missing))
	}
	if len(m.Partial) > 0 {
		fmt.Fprintf(ew, "; partial: %s", joinInts(m.Partial))
	}
	if len(m.Clocks) > 0 {
		applied, maxErr := 0, 0.0
		for _, c := range m.Clocks {
			maxErr = max(maxErr, c.ErrorMs)
			if c.Applied {
				applied++
			}
		}
		fmt.Fprintf(ew, "; clock offsets within %s ms of each other (each ± %s ms at most), %d corrected", report.Num(m.ClockSpreadMs), report.Num(maxErr), applied)
	}
	fmt.Fprintln(ew)
	for _, l := range m.Lacks {
		fmt.Fprintf(ew, "  lacks: %s\n", l)
	}
	for _, s := range m.Steps {
		fmt.Fprintf(ew, "\n%s %s %s: %s ops/s (%s MB/s) over the %s s all shards ran; %s ops/s (%s MB/s) over the whole %s s; spread %s%%",
			s.Workload, s.Op, report.FormatSize(s.SizeBytes), report.Num(s.CommonOpsPerS), report.Num(s.CommonMBPerS), report.Num(s.CommonWindowS),
			report.Num(s.WholeOpsPerS), report.Num(s.WholeMBPerS), report.Num(s.WholeWindowS), report.Num(s.OpsPerSSpreadPct))
		if len(s.Stragglers) > 0 {
			fmt.Fprintf(ew, "; stragglers: %s", joinInts(s.Stragglers))
		}
		fmt.Fprintln(ew)
		var rows [][]string
		for _, r := range s.Shards {
			note := ""
			switch {
			case r.Partial:
				note = "partial"
			case r.Straggler:
				note = "straggler"
			}
			rows = append(rows, []string{"shard " + strconv.Itoa(r.Shard), strconv.FormatInt(r.Count, 10), strconv.FormatInt(r.Errors, 10),
				report.Num(r.OpsPerS), report.Num(r.P50ms), report.Num(r.P99ms), report.Num(r.StartLateMs), report.Num(r.EndLateMs), note})
		}
		table(ew, [][]string{{"count", "errors", "ops/s", "p50 ms", "p99 ms", "start +ms", "end ±ms", ""}}, rows)
	}
	return ew.err
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
