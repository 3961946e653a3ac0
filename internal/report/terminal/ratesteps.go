package terminal

import (
	"fmt"
	"io"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
)

// writeRateSteps writes, for each result with an open loop's rate steps
// (--rate steps or a ramp), a table with a row per step and the knee.
func writeRateSteps(w io.Writer, d *document.Document) {
	heading := columnNamer(d.Results)
	for _, r := range d.Results {
		if len(r.RateSteps) == 0 {
			continue
		}
		heads := append([]string{heading(r) + ": rate steps"}, report.RateStepHeads...)
		var rows [][]string
		for _, s := range r.RateSteps {
			rows = append(rows, report.RateStepRow(s))
		}
		fmt.Fprintln(w)
		leftTable(w, heads, rows)
		if s := report.KneeSentence(r); s != "" {
			fmt.Fprintln(w, s)
		}
	}
}
