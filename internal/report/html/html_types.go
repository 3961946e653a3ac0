package html

import (
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// HTMLInput is what `objbench report` renders into one self-contained page.
type HTMLInput struct {
	Title string
	// Generated is when the page was made, shown as given.
	Generated string
	Runs      []HTMLRun
	// Crossovers found by compare between runs of two targets (optional).
	Crossovers []document.Crossover
}

// HTMLRun is one saved run and its document.
type HTMLRun struct {
	ID    string
	Label string // short legend name, e.g. "s3 lab:cross-region" or a --label value
	// Doc is the run's document: *document.Document (run, probe, merge),
	// *document.StrategiesDocument, *document.StartupDocument or
	// *document.ExplainDocument; each figure draws the kinds it knows.
	Doc document.Doc
	// Meta is the run metadata shown in the page (command, host, versions, options, labels).
	Meta map[string]string
	// Quantiles are read from the stored histograms, by index in
	// Doc.Results; a step without them is plotted from its percentiles.
	Quantiles map[int]StepQuantiles
	// Series are the steps' results over time, by index in Doc.Results
	// (none in databases older than issue 16).
	Series map[int][]stats.Interval
	// ShardRates are a merged run's per-shard rates over time, by index in
	// Doc.Results (objbench merge).
	ShardRates map[int][]document.ShardRate
}
