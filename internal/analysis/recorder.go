package analysis

import (
	"sync/atomic"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/stats"
)

// RunRecorder gathers a run's steps as they finish: each step's result
// into the document (see StepResult), its histograms, and a uniform
// sample of its requests for the results database.
type RunRecorder struct {
	Doc *document.Document
	// Histograms are the steps' encoded histograms, in step order.
	Histograms []map[string][]byte

	strategy string
	open     *load.OpenSettings
	keeper   *stats.Reservoir
	step     atomic.Int64
}

// NewRunRecorder records into doc the steps of a run under strategy and
// open-loop settings, keeping up to keep requests (0 when not saved).
func NewRunRecorder(doc *document.Document, strategy string, open *load.OpenSettings, keep int) *RunRecorder {
	return &RunRecorder{Doc: doc, strategy: strategy, open: open, keeper: stats.NewReservoir(keep)}
}

// Cap is how many requests each worker keeps (load.Runner.Keep).
func (r *RunRecorder) Cap() int { return r.keeper.Cap() }

// Begin marks step i (counted from 1) as the one running.
func (r *RunRecorder) Begin(i int) { r.step.Store(int64(i - 1)) }

// Add records a finished step and returns its result; the workers' kept
// requests are merged into the run's sample and dropped from res.
func (r *RunRecorder) Add(res *load.StepResult) *document.Result {
	r.Doc.Results = append(r.Doc.Results, StepResult(res, r.strategy, r.open))
	r.Histograms = append(r.Histograms, res.Histograms)
	for _, k := range res.Kept {
		r.keeper.Merge(k, int(r.step.Load()))
	}
	res.Kept = nil // merged: the workers' reservoirs can go
	return &r.Doc.Results[len(r.Doc.Results)-1]
}

// Kept are the requests kept across the run, each with its step,
// unpacked one at a time as they are read.
func (r *RunRecorder) Kept() stats.KeptSeq { return r.keeper.All() }
