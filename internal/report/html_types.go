package report

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

// HTMLRun is one saved run: a `run` document and/or a `strategies` document.
type HTMLRun struct {
	ID    string
	Label string // short legend name, e.g. "s3 lab:cross-region" or a --label value
	// Doc is the objbench/v1 document of `objbench run` (nil for other commands).
	Doc *document.Document
	// Strategies is the document of `objbench strategies` (nil otherwise).
	Strategies *document.StrategiesDocument
	// Startup is the document of `objbench startup` (nil otherwise).
	Startup *document.StartupDocument
	// Explain is the document of `objbench explain` (nil otherwise).
	Explain *document.ExplainDocument
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
