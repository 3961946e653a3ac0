package terminal

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/objbench/objbench/internal/document"
)

// WriteProfileRows prints two profiles side by side (compare, with the
// ratio B/A) or a profile against its lab (lab check, with the verdict);
// no rows, nothing.
func WriteProfileRows(w io.Writer, a, b string, rows []document.ProfileRow, check, jsonOut bool) error {
	if rows == nil {
		return nil
	}
	if jsonOut {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(document.NewProfileComparison(a, b, rows, check))
	}
	fmt.Fprintf(w, "A: %s\nB: %s\n\n", a, b)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	last := "B/A\t"
	if check {
		last = "±\tresult\t"
	}
	fmt.Fprintf(tw, "quantity\tunit\tA\tB\t%s\n", last)
	for _, r := range rows {
		tail := "\t"
		switch {
		case check && r.Tolerance == 0:
			tail = "\t\t"
		case check:
			tail = fmt.Sprintf("%.2f\t%s\t", r.Tolerance, map[bool]string{true: "ok", false: "FAIL"}[r.Pass])
		case r.A != 0:
			tail = fmt.Sprintf("%.2f\t", r.B/r.A)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%s\n", r.Quantity, r.Unit, r.A, r.B, tail)
	}
	return tw.Flush()
}
