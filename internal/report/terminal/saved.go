package terminal

import (
	"fmt"
	"io"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
)

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
