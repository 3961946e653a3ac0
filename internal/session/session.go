// Package session is one measuring run from its settings to the annotated
// document: the document's envelope, the recorder and the journal, the
// load session with its steps, cleanup, the shard's merge, and the
// warnings; a probe session on clients that stay open (ProbeConfig); and
// saving the finished document. The command line only parses flags into
// a Config and draws what the hooks report.
package session

import (
	"context"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/journal"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/target"
)

// Config is one run: where it goes, what it runs, and where it is kept.
type Config struct {
	Env       *target.Env
	Shard     *shard.Run
	NewClient load.ClientFactory
	RunID     string
	Started   time.Time
	Strategy  string
	// Options are the document's options, as the flags give them (Run
	// adds a Download other than stream).
	Options map[string]string
	Labels  map[string]string
	Opts    load.Options
	Open    *load.OpenSettings
	// Timeout bounds each request (and, with 2 minutes, the cleanup).
	Timeout time.Duration
	// Download is how a GET reads an object: load.DownloadStream, or
	// load.DownloadRanged with the target's part size and parts in flight.
	Download string
	// KeepSamples is how many raw requests the recorder keeps.
	KeepSamples int
	// DB and Journal: the results database, and whether the run is
	// journaled there as it goes; ResultsEvery is a shard's upload period.
	DB           string
	Journal      bool
	ResultsEvery time.Duration
	Prices       analysis.Prices
	Stderr       io.Writer
	// Hooks draw progress; Notify prints a line (a warning or notice),
	// in the order the run meets them.
	OnStep     func(i, n int)
	OnProgress func(st *load.Step, done int64, elapsed time.Duration)
	OnInterval func(st *load.Step, ivs []stats.Interval)
	OnDone     func()
	Notify     func(line string)
}

// Outcome is a finished (or interrupted) run.
type Outcome struct {
	Doc        *document.Document
	Histograms []map[string][]byte
	Kept       stats.KeptSeq
	// Err is why the run stopped early (or was interrupted), with
	// results to show.
	Err error
	// release ends the journal and the steps' memory budget (Close).
	release func()
}

// Close ends a run once its document is saved (or was not to be): the
// journal is dropped (a saved run's went with the save) and the steps'
// memory budget given back. Until then, a process killed while it prints
// or saves leaves the run in the journal, to be recovered.
func (o Outcome) Close() {
	if o.release != nil {
		o.release()
	}
}

// Run runs c. An error is returned only when the run stopped with no
// result to show; else Outcome.Err says why it stopped early, and the
// caller closes the Outcome once it has saved the document.
func Run(ctx context.Context, c Config) (Outcome, error) {
	env, sr := c.Env, c.Shard
	doc := &document.Document{Envelope: document.NewEnvelope("run", c.RunID, c.Started)}
	doc.Target, doc.Lab, doc.Options, doc.Labels = env.Info(), env.LabInfo, withDownload(c.Options, c.Download), c.Labels
	rec := analysis.NewRunRecorder(doc, c.Strategy, c.Open, c.KeepSamples)
	jr := journal.Start(ctx, c.DB, c.Journal, sr.SaveID(c.RunID), doc, c.Strategy, c.Open, c.Open.Interval, sr, c.ResultsEvery, c.Stderr)
	release := jr.Close
	defer func() {
		if release != nil { // no outcome to save: the run ends here
			release()
		}
	}()
	// wire counts what the lab's wire does in the step under way; a mixed
	// step's ops each get the step's counts. Off the lab it stays nil.
	var wire func() *document.WireStats
	sess := &load.Session{
		Runner: &load.Runner{NewClient: c.NewClient, Timeout: c.Timeout, Progress: c.OnProgress, Keep: rec.Cap(),
			Interval: c.Open.Interval, OnInterval: func(st *load.Step, ivs []stats.Interval) {
				jr.Interval(st, ivs) // journaled before it is shown: a line printed is a line kept
				c.OnInterval(st, ivs)
			}, Ready: sr.WaitStart},
		Setup:    env.Setup.Backend,
		Prefix:   env.Prefix,
		Opts:     c.Opts,
		Keep:     env.Keep,
		Download: download(env, c.Download),
		BeforeStep: func(i, n int, st *load.Step) {
			rec.Begin(i)
			jr.BeginStep(i, st)
			if env.Lab != nil {
				wire = env.Lab.WireMeter()
			}
			c.OnStep(i, n)
		},
		AfterStep: func(res *load.StepResult) {
			sr.StepDone(res.Wall)
			r := rec.Add(res)
			if wire != nil {
				r.Wire = wire()
			}
			jr.Result(r, res.Histograms)
		},
	}
	giveBack := stats.HoldGCBudget() // the steps' budget, until the run is saved
	release = func() { giveBack(); jr.Close() }
	_, runErr := sess.Run(ctx)
	c.OnDone()
	doc.Interrupted = ctx.Err() != nil
	if _, cerr := sess.Cleanup(2*time.Minute + c.Timeout); cerr != nil {
		c.Notify("warning: " + cerr.Error())
	}
	doc.DurationS = time.Since(c.Started).Seconds()
	doc.Express = env.Express()
	jr.Stop() // no partial upload after the final document
	warnings, runErr := sr.Finish(doc, rec.Histograms, runErr, doc.Interrupted)
	for _, w := range append(analysis.RateWarnings(doc), warnings...) {
		c.Notify(w)
	}
	out := Outcome{Doc: doc, Histograms: rec.Histograms, Kept: rec.Kept(), Err: runErr}
	if runErr != nil && !doc.Interrupted {
		if len(doc.Results) == 0 {
			return out, runErr
		}
		c.Notify(fmt.Sprintf("run stopped early: %s", runErr))
	}
	analysis.Annotate(doc, c.Prices)
	out.release, release = release, nil // the caller's, once it has saved the run
	return out, nil
}

// download is how a GET reads an object on env: mode (load.DownloadStream
// or load.DownloadRanged) with the target's part size and parts in flight.
func download(env *target.Env, mode string) load.Download {
	return load.Download{Mode: mode, PartSize: env.Options.PartSize, Parallel: env.Options.PartConcurrency}
}

// withDownload is the document's options with a download mode other than
// stream named: a default run's options are unchanged.
func withDownload(options map[string]string, mode string) map[string]string {
	if mode == "" || mode == load.DownloadStream {
		return options
	}
	m := maps.Clone(options)
	if m == nil {
		m = map[string]string{}
	}
	m["download"] = mode
	return m
}
