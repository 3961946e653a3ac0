package report

import (
	"bytes"
	"strings"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
)

// runFindings are a run's findings and cost lines for the HTML page; a
// document saved before findings existed gets them now, at list prices.
func runFindings(r HTMLRun) ([]document.Finding, []string) {
	var c *document.Cost
	var fs []document.Finding
	switch {
	case r.Doc != nil:
		if r.Doc.Findings == nil && r.Doc.Cost == nil {
			analysis.Annotate(r.Doc, analysis.DefaultPrices())
		}
		fs, c = r.Doc.Findings, r.Doc.Cost
	case r.Strategies != nil:
		if r.Strategies.Findings == nil && r.Strategies.Cost == nil {
			analysis.AnnotateStrategies(r.Strategies, analysis.DefaultPrices())
		}
		fs, c = r.Strategies.Findings, r.Strategies.Cost
	case r.Explain != nil:
		fs, c = r.Explain.Explain.Findings, r.Explain.Explain.Cost
	}
	var buf bytes.Buffer
	WriteCost(&buf, c)
	var lines []string
	for l := range strings.Lines(buf.String()) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return fs, lines
}
