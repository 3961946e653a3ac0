// Package journal writes a run to the results database as it goes, so that
// a run killed at any moment keeps every interval it completed (see
// results.BeginJournal). The command line only wires its hooks into the
// runner and the session.
package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
)

// Run writes a run to the results database as it goes (see
// results.BeginJournal): the settings first, each step's template, every
// interval in one transaction, each finished result. A run killed at any
// moment is then found by the next command that opens the database and
// saved as interrupted with every interval it completed. A shard writing
// --results-to also uploads its document so far every few intervals.
// Its methods are the runner's and the session's hooks; a nil *Run does
// nothing.
type Run struct {
	st       *results.Store // nil: not journaled (--no-save, --no-journal)
	id       string
	strategy string
	open     *load.OpenSettings
	stepIv   time.Duration // the runner's interval
	stderr   io.Writer

	mu      sync.Mutex
	step    int
	seq     int
	results int
	warned  bool
	partial *results.Partial // kept for uploads (nil: none)
	sr      *shard.Run
	every   int // intervals between uploads
	since   int
	busy    bool
	uploads sync.WaitGroup
	quit    chan struct{}
	alive   sync.WaitGroup
	stopped bool
}

// journalWrite bounds each journal write: the run's context may be
// cancelled already (Ctrl-C), and the database waits up to a minute for
// another process's lock.
const journalWrite = 90 * time.Second

// Start begins the journal of doc (its settings, no results yet) in the
// results database at db, saved as id, unless on is false (the run is not
// saved); sr, when it writes --results-to, gets the document so far every
// `every` of run time (0: only at the end). Warnings go to stderr: the run
// goes on without its journal.
func Start(ctx context.Context, db string, on bool, id string, doc *document.Document, strategy string,
	open *load.OpenSettings, interval time.Duration, sr *shard.Run, every time.Duration, stderr io.Writer) *Run {
	j := &Run{id: id, strategy: strategy, open: open, stepIv: interval, stderr: stderr, quit: make(chan struct{})}
	if sr != nil && sr.Place != nil && every > 0 {
		j.sr, j.partial = sr, results.NewPartial(*doc)
		j.every = max(int(math.Ceil(float64(every)/float64(max(interval, time.Millisecond)))), 1)
	}
	if on {
		// The code the start touched (packages' inits, the target's set-up)
		// is given back first, as the session gives it back before its first
		// step: the database's own code, which the journal brings in now and
		// the saving would only at the end, then does not add to it at the
		// start's high-water mark (bench/journal.sh: peak RSS).
		stats.ReleaseCode()
		settings, err := document.Encode(doc)
		if err == nil {
			var st *results.Store
			if st, err = results.OpenAt(ctx, db); err == nil {
				wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalWrite)
				err = st.BeginJournal(wctx, id, doc.Started(), settings)
				cancel()
				if err != nil {
					st.Close()
				} else {
					j.st = st
				}
			}
		}
		if err != nil {
			j.warn(err)
		}
	}
	if j.st != nil {
		j.alive.Add(1)
		go j.keepAlive()
	}
	return j
}

// keepAlive says the run is going between intervals (see
// results.JournalAliveEvery).
func (j *Run) keepAlive() {
	defer j.alive.Done()
	t := time.NewTicker(results.JournalAliveEvery)
	defer t.Stop()
	for {
		select {
		case <-j.quit:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), journalWrite)
			_ = j.st.JournalAlive(ctx, j.id)
			cancel()
		}
	}
}

// warn prints the journal's first failure: the run goes on without it.
func (j *Run) warn(err error) {
	if j.warned {
		return
	}
	j.warned = true
	fmt.Fprintf(j.stderr, "objbench: warning: journal: %s (the run goes on; killed, it would lose what it measured since)\n", oneLine(err.Error()))
}

// write runs fn against the journal with its own deadline; a failure is
// warned of once.
func (j *Run) write(fn func(ctx context.Context, st *results.Store) error) {
	if j.st == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), journalWrite)
	defer cancel()
	if err := fn(ctx, j.st); err != nil {
		j.warn(err)
	}
}

// beginStep journals step i's template (the session's BeforeStep).
func (j *Run) BeginStep(i int, st *load.Step) {
	if j == nil {
		return
	}
	tmpl := analysis.StepResult(&load.StepResult{Step: st, Summary: stats.NewRecorder().Summarize(0, 0)}, j.strategy, j.open)
	tmpl.SeriesIntervalS = j.stepIv.Seconds()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.step, j.seq = i, 0
	if j.partial != nil {
		j.partial.BeginStep(i, tmpl)
	}
	if j.st == nil {
		return
	}
	b, err := json.Marshal(finiteResult(tmpl))
	if err != nil {
		j.warn(err)
		return
	}
	j.write(func(ctx context.Context, s *results.Store) error { return s.JournalStep(ctx, j.id, i, b) })
}

// interval journals one interval of every op (the runner's OnInterval):
// one transaction, so it is there whole or not at all.
func (j *Run) Interval(st *load.Step, ivs []stats.Interval) {
	if j == nil || len(ivs) == 0 {
		return
	}
	now := time.Now()
	rows := make([]results.JournalInterval, 0, len(ivs))
	offered := make([]float64, len(ivs))
	for k, iv := range ivs {
		part := *st
		part.Op = iv.Op
		offered[k] = j.open.Offered(&load.StepResult{Step: &part, Wall: time.Duration(iv.EndS * float64(time.Second))})
		if j.st != nil {
			b, err := json.Marshal(iv)
			if err != nil {
				j.warn(err)
				return
			}
			rows = append(rows, results.JournalInterval{Op: iv.Op, Offered: offered[k], End: now, Data: b})
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	step, seq := j.step, j.seq
	j.seq++
	if j.st != nil {
		j.write(func(ctx context.Context, s *results.Store) error {
			return s.JournalIntervals(ctx, j.id, step, seq, rows)
		})
	}
	if j.partial == nil {
		return
	}
	for k, iv := range ivs {
		if err := j.partial.Add(step, iv, offered[k], now); err != nil {
			j.warn(err)
		}
	}
	if j.since++; j.since >= j.every && !j.busy && !j.stopped {
		j.since = 0
		j.uploadLocked()
	}
}

// uploadLocked writes the shard's document so far in the background (one
// upload at a time; j.mu held).
func (j *Run) uploadLocked() {
	d, hists, err := j.partial.Document("partial: uploaded while the shard ran; it wrote no final document", time.Now())
	if err != nil {
		j.warn(err)
		return
	}
	j.busy = true
	j.uploads.Add(1)
	go func() {
		defer j.uploads.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := j.sr.WritePartial(ctx, d, hists); err != nil {
			j.mu.Lock()
			j.warn(fmt.Errorf("partial upload: %w", err))
			j.mu.Unlock()
		}
		j.mu.Lock()
		j.busy = false
		j.mu.Unlock()
	}()
}

// result journals a finished result (the session's AfterStep, after the
// recorder made it).
func (j *Run) Result(r *document.Result, hists map[string][]byte) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	step, idx := j.step, j.results
	j.results++
	if j.partial != nil {
		j.partial.Result(step, *r, hists)
	}
	if j.st == nil {
		return
	}
	b, err := json.Marshal(finiteResult(*r))
	if err != nil {
		j.warn(err)
		return
	}
	j.write(func(ctx context.Context, s *results.Store) error {
		return s.JournalResult(ctx, j.id, step, idx, b, hists)
	})
}

// stop ends the uploads (waiting for one under way), before the shard's
// final document is written.
func (j *Run) Stop() {
	if j == nil {
		return
	}
	j.mu.Lock()
	already := j.stopped
	j.stopped = true
	j.mu.Unlock()
	if already {
		return
	}
	close(j.quit)
	j.uploads.Wait()
	j.alive.Wait()
}

// close stops the journal and removes what is left of it: a saved run's
// journal went with the save; one not saved (the run failed before any
// result, or the save failed and was warned of) is not a killed run.
func (j *Run) Close() {
	if j == nil {
		return
	}
	j.Stop()
	if j.st != nil {
		j.write(func(ctx context.Context, s *results.Store) error { return s.DropJournal(ctx, j.id) })
		j.st.Close()
		j.st = nil
	}
}

// finiteResult is r with every float finite, as the document encodes it.
func finiteResult(r document.Result) document.Result {
	return document.Clean(&document.Document{Results: []document.Result{r}}).(*document.Document).Results[0]
}

// oneLine is s on one line, its runs of white space one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
