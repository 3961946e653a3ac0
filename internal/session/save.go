package session

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/html"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/usage"
)

// Keep says where a finished document goes: the results database at DB
// (unless NoSave) and, when Report is a path, an HTML page; with the
// document, its Labels (k=v) and KeepSamples raw requests (Check).
type Keep struct {
	DB          string
	NoSave      bool
	Report      string
	Labels      []string
	KeepSamples int
}

// Check validates what is kept before any work starts, so that a mistake
// costs no run: a negative KeepSamples, a Report whose folder is not
// there, a label that is not k=v. With NoSave no sample is kept
// (KeepSamples becomes 0). It returns the labels parsed; its errors are
// the user's to fix, a setting named by its field.
func (k *Keep) Check() (map[string]string, error) {
	if k.KeepSamples < 0 {
		return nil, usage.Fieldf("{KeepSamples} must not be negative")
	}
	if k.NoSave {
		k.KeepSamples = 0 // nothing is stored: no sample is kept
	}
	if err := html.CheckPath(k.Report); err != nil {
		return nil, err
	}
	return results.ParseLabels(k.Labels)
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

// Ended is the error a measuring command ends with once its document d is
// written and saved: interrupted (the caller's own) when the run was, as
// its figures are partial whatever else failed; else the run's error and
// the thresholds it crossed, both said.
func Ended(d document.Doc, interrupted, runErr, thresholds error) error {
	if d.Head().Interrupted {
		return interrupted
	}
	return errors.Join(runErr, thresholds)
}
