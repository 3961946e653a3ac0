package html

import (
	"bytes"
	"strings"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
)

// runFindings are a run's findings and cost lines for the HTML page; a
// document saved before findings existed gets them now, at list prices.
func runFindings(r HTMLRun) ([]document.Finding, []string) {
	var c *document.Cost
	var fs []document.Finding
	switch d := r.Doc.(type) {
	case *document.Document:
		if d.Findings == nil && d.Cost == nil {
			analysis.Annotate(d, analysis.DefaultPrices())
		}
		fs, c = d.Findings, d.Cost
	case *document.StrategiesDocument:
		if d.Findings == nil && d.Cost == nil {
			analysis.AnnotateStrategies(d, analysis.DefaultPrices())
		}
		fs, c = d.Findings, d.Cost
	case *document.ExplainDocument:
		fs, c = d.Explain.Findings, d.Explain.Cost
	}
	var buf bytes.Buffer
	report.WriteCost(&buf, c)
	var lines []string
	for l := range strings.Lines(buf.String()) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return fs, lines
}
