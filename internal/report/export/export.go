// Package export writes a saved run for other tools: its results as CSV,
// its raw samples, its results over time as CSV or an HdrHistogram log.
package export

import (
	"errors"
	"fmt"
	"io"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
)

// ErrFormat says export was asked for a format it does not have.
var ErrFormat = errors.New("unknown export format")

// WriteExport writes a saved run in one of export's formats: its stored
// JSON document, its results as CSV, its raw samples (read by each) as
// CSV, or its results per interval (series, hdrlog).
func WriteExport(w io.Writer, sr *analysis.Run, format string, each func(fn func(results.SampleRow) error) error) error {
	switch format {
	case "json":
		_, err := fmt.Fprintf(w, "%s\n", sr.Meta.Document)
		return err
	case "csv":
		d, ok := sr.Doc.(*document.Document)
		if !ok {
			return fmt.Errorf("run %s is a %s run: csv exports run results; use --format json", sr.Meta.ID, sr.Meta.Command)
		}
		return WriteCSV(w, d)
	case "series", "hdrlog":
		return WriteSeries(w, sr, format)
	case "samples":
		return WriteSamplesCSV(w, sr, each)
	}
	return fmt.Errorf("%w: --format %q: use json, csv, samples, series or hdrlog", ErrFormat, format)
}
