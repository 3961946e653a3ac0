package terminal

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/stats"
)

// WriteComparison writes one comparison: the runs, the step table with the
// changes and their intervals, then the crossovers.
func WriteComparison(w io.Writer, c analysis.Comparison) {
	fmt.Fprintf(w, "A = %s (%s)\nB = %s (%s)\n", c.A, c.ALabel, c.B, c.BLabel)
	for _, cs := range c.CutShort {
		fmt.Fprintln(w, cs)
	}
	if len(c.Explain) > 0 {
		writeExplainComparison(w, c)
		return
	}
	if c.Note != "" {
		fmt.Fprintf(w, "%s\n\n", c.Note)
		return
	}
	if len(c.Steps) == 0 {
		fmt.Fprintln(w, "no step in common")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tA p50\tA p90\tA p99\tA MB/s\tB p50\tB p90\tB p99\tB MB/s\tΔp50 ms [95% CI]\tΔp99 ms [95% CI]\tMW p\tverdict\t")
	for _, s := range analysis.ChangedFirst(c.Steps) {
		mw := "-"
		if s.MannWhitneyP != nil {
			mw = fmt.Sprintf("%.2g", *s.MannWhitneyP)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%s\t%.2f\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n", strings.TrimSpace(s.Step),
			s.A.P50, s.A.P90, s.A.P99, mbpsCell(s.A.MBps), s.B.P50, s.B.P90, s.B.P99, mbpsCell(s.B.MBps),
			changeCell(s.DeltaP50), changeCell(s.DeltaP99), mw, s.Verdict)
	}
	tw.Flush()
	for _, x := range c.Crossovers {
		fmt.Fprintf(w, "\ncrossover (%s): ", x.Op)
		if x.SizeBytes > 0 {
			fmt.Fprintf(w, "%s finishes sooner for objects larger than %s\n", x.Faster, report.HumanBytes(x.SizeBytes))
		} else {
			fmt.Fprintln(w, "none: one run is faster at every size")
		}
		fmt.Fprintf(w, "  fit A: total = %.1f ms + size / %.1f MB/s (%d sizes)\n", x.FitA.TTFBms, x.FitA.MBps, len(x.FitA.Points))
		fmt.Fprintf(w, "  fit B: total = %.1f ms + size / %.1f MB/s (%d sizes)\n", x.FitB.TTFBms, x.FitB.MBps, len(x.FitB.Points))
	}
	WriteFindings(w, c.Findings)
	fmt.Fprintln(w)
}

func mbpsCell(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func changeCell(c stats.Change) string {
	return fmt.Sprintf("%+.2f [%+.2f, %+.2f]", c.Delta, c.Lo, c.Hi)
}

// WriteComparisonsJSON prints compare's {"schema", "comparisons"}.
func WriteComparisonsJSON(w io.Writer, comps []analysis.Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"schema": document.Schema, "comparisons": comps})
}

// WriteComparisons prints compare's comparisons as JSON, or as a table each.
func WriteComparisons(w io.Writer, comps []analysis.Comparison, jsonOut bool) error {
	if jsonOut {
		return WriteComparisonsJSON(w, comps)
	}
	for _, c := range comps {
		WriteComparison(w, c)
	}
	return nil
}
