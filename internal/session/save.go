package session

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/html"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
)

// Keep says where a finished document goes: the results database at DB
// (unless NoSave) and, when Report is a path, an HTML page.
type Keep struct {
	DB     string
	NoSave bool
	Report string
}

// Save encodes a finished (or interrupted) document once, stores it with
// its steps and kept samples, then writes the report from memory. A
// failure to store is a warning (the results were already printed); a
// failure to encode, or to write the report asked for, is the error.
func (k Keep) Save(d document.Doc, histograms []map[string][]byte, kept stats.KeptSeq, stderr io.Writer) error {
	run, steps, err := results.Record(d, histograms)
	if err != nil {
		return err
	}
	if !k.NoSave {
		k.Store(run, steps, kept, stderr)
	}
	if k.Report == "" {
		return nil
	}
	return html.WriteAfterRun(k.Report, analysis.FromDocument(run, steps, d), stderr)
}

// Store saves a run in the results database; a failure is a warning.
func (k Keep) Store(run results.Run, steps []results.Step, kept stats.KeptSeq, stderr io.Writer) {
	if err := results.SaveWithin(2*time.Minute, k.DB, run, steps, kept); err != nil {
		fmt.Fprintf(stderr, "objbench: warning: run %s not saved: %s\n", run.ID, strings.Join(strings.Fields(err.Error()), " "))
	}
}
