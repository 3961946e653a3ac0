package shard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/usage"
)

// Run is this process's part of a sharded run: which shard, where it
// writes its document, when its measured window starts, and the windows it
// measured.
type Run struct {
	Spec Spec
	// Place is --results-to (nil: the document is not written anywhere).
	Place *Place
	// StartAt is when the first measured step begins (zero: when ready).
	StartAt time.Time
	// Prefix is the shard's key space in the target.
	Prefix  string
	clock   *Clock
	windows []document.Window
	// ready is when the current step's clock started (WaitStart returned).
	ready time.Time
	// Late is how far after StartAt the first step began.
	Late time.Duration
	// sharded is a run of several shards (not one writing --results-to):
	// its document is saved under the shard's own id.
	sharded bool
	// mu guards windows and ready, read by WritePartial while the run
	// goes; put serialises writes of the document, and final says the
	// final one is written: no partial one may follow it.
	mu    sync.Mutex
	put   sync.Mutex
	final bool
}

// startDoc is RUN/start.json, the start time shard 0 resolved.
type startDoc struct {
	StartAt time.Time `json:"start_at"`
}

// StartName is where shard 0 writes the start time it resolved.
func StartName(runID string) string { return path.Join(runID, "start.json") }

// ResolveStart reads StartAt (RFC 3339) or StartIn (a delay): with
// shards, StartIn is resolved once, by shard 0, which writes the time
// next to the results; the other shards read it there (waiting for it up
// to the delay and a few minutes more), so that every shard's measured
// window begins at the same wall-clock time.
func ResolveStart(ctx context.Context, startAt string, startIn time.Duration, s Spec, place *Place) (time.Time, error) {
	switch {
	case startAt != "" && startIn != 0:
		return time.Time{}, usage.Fieldf("{StartAt} and {StartIn}: give one")
	case startIn < 0:
		return time.Time{}, usage.Fieldf("{StartIn} must be positive, got %s", startIn)
	case startAt != "":
		t, err := time.Parse(time.RFC3339, startAt)
		if err != nil {
			return time.Time{}, usage.Fieldf("{StartAt} %q: use an RFC 3339 time such as 2026-11-23T18:30:00Z", startAt)
		}
		return t, nil
	case startIn == 0:
		return time.Time{}, nil
	case s.Count <= 1:
		return time.Now().Add(startIn), nil
	case place == nil:
		return time.Time{}, usage.Fieldf("{StartIn} with shards needs {ResultsTo} (shard 0 writes the start time there); or give every shard the same {StartAt}")
	}
	name := StartName(s.RunID)
	read := func() (time.Time, error) {
		b, err := place.Get(ctx, name)
		if err != nil {
			return time.Time{}, err
		}
		var d startDoc
		if err := json.Unmarshal(b, &d); err != nil || d.StartAt.IsZero() {
			return time.Time{}, fmt.Errorf("%s is corrupted: %v", place.Where(name), err)
		}
		return d.StartAt, nil
	}
	if s.Index == 0 {
		if t, err := read(); err == nil {
			return t, nil // shard 0 restarted: keep the time the others read
		} else if !errors.Is(err, ErrNotExist) {
			return time.Time{}, err
		}
		t := time.Now().Add(startIn).UTC()
		b, _ := json.Marshal(startDoc{StartAt: t})
		if err := place.Put(ctx, name, b); err != nil {
			return time.Time{}, err
		}
		return t, nil
	}
	deadline := time.Now().Add(startIn + 5*time.Minute)
	for {
		t, err := read()
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, ErrNotExist) {
			return time.Time{}, err
		}
		if time.Now().After(deadline) {
			return time.Time{}, usage.Namedf("shard 0 wrote no start time to %s within %s: start shard 0 too, or give every shard the same {StartAt}",
				place.Where(name), startIn+5*time.Minute)
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// SetClock records the clock offset estimate.
func (r *Run) SetClock(c Clock) { r.clock = &c }

// WaitStart is called as each step's clock is about to start (the
// runner's Ready hook): before the first, it sleeps until StartAt (a shard
// ready after StartAt starts at once and records how late); every step's
// window starts when it returns.
func (r *Run) WaitStart(ctx context.Context) {
	if r == nil {
		return
	}
	defer func() { r.mu.Lock(); r.ready = time.Now(); r.mu.Unlock() }()
	r.mu.Lock()
	first := len(r.windows) == 0
	r.mu.Unlock()
	if r.StartAt.IsZero() || !first {
		return
	}
	d := time.Until(r.StartAt)
	if d <= 0 {
		r.Late = -d
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// StepDone records a result's measured window: from when its clock
// started, for wall (the parts of a mixed step share both).
func (r *Run) StepDone(wall time.Duration) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	start := r.ready
	if start.IsZero() { // no Ready hook: the window ended about now
		start = time.Now().Add(-wall)
	}
	r.windows = append(r.windows, document.Window{Start: start.UTC().Format(time.RFC3339Nano), End: start.Add(wall).UTC().Format(time.RFC3339Nano)})
}

// Info is the shard block of the document.
func (r *Run) Info() *document.ShardInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := &document.ShardInfo{Run: r.Spec.RunID, Index: r.Spec.Index, Count: r.Spec.Count, Engine: r.Spec.Engine, Prefix: r.Prefix,
		Windows: append([]document.Window{}, r.windows...)}
	if !r.StartAt.IsZero() {
		i.StartAt = r.StartAt.UTC().Format(time.RFC3339Nano)
		i.LateMs = float64(r.Late) / 1e6
	}
	if r.clock != nil {
		i.ClockMeasured = true
		i.ClockOffsetMs, i.ClockErrorMs = float64(r.clock.Offset)/1e6, float64(r.clock.Error)/1e6
	}
	return i
}

// Write stores the shard's document, with its histograms, in the results
// place: at the end of the run, or what it has when interrupted or failed
// (failed says why). It uses its own deadline: the run's context may be
// cancelled already.
func (r *Run) Write(d *document.Document, hists []map[string][]byte, failed string) error {
	if r == nil || r.Place == nil {
		return nil
	}
	info := r.Info()
	info.Failed = failed
	d.Shard = info
	b, err := Encode(d, hists)
	if err != nil {
		return err
	}
	r.put.Lock()
	defer r.put.Unlock()
	r.final = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return r.Place.Put(ctx, DocName(r.Spec), b)
}

// WritePartial stores the shard's document as far as the run has gone
// (d: the finished results, then the running step's as far as its
// journaled intervals; marked interrupted and cut short), in place of
// the final one until that is written, so that a shard killed by its
// engine is merged as partial with what it measured. The running step's
// window ends now. Once the final document is written (Write), it does
// nothing.
func (r *Run) WritePartial(ctx context.Context, d *document.Document, hists []map[string][]byte) error {
	if r == nil || r.Place == nil {
		return nil
	}
	info := r.Info()
	r.mu.Lock()
	if len(info.Windows) < len(d.Results) && !r.ready.IsZero() {
		now := time.Now()
		for len(info.Windows) < len(d.Results) { // the running step's parts share its window
			info.Windows = append(info.Windows, document.Window{Start: r.ready.UTC().Format(time.RFC3339Nano), End: now.UTC().Format(time.RFC3339Nano)})
		}
	}
	r.mu.Unlock()
	d.Shard = info
	b, err := Encode(d, hists)
	if err != nil {
		return err
	}
	r.put.Lock()
	defer r.put.Unlock()
	if r.final {
		return nil
	}
	return r.Place.Put(ctx, DocName(r.Spec), b)
}

// Finish ends this process's part after the load: it writes the document
// (see Write) with why the run stopped early, if it did and was not
// interrupted, then gives a shard's document the shard's own id, to be
// saved apart from the merged run. It returns the warnings to print (a
// failed write when the run had failed already, a window that began late)
// and the run's error: runErr, else a failed write. A nil Run returns
// runErr.
func (r *Run) Finish(d *document.Document, hists []map[string][]byte, runErr error, interrupted bool) ([]string, error) {
	if r == nil {
		return nil, runErr
	}
	failed := ""
	if runErr != nil && !interrupted {
		failed = strings.Join(strings.Fields(runErr.Error()), " ")
	}
	var warnings []string
	if err := r.Write(d, hists, failed); err != nil && runErr == nil {
		runErr = err
	} else if err != nil {
		warnings = append(warnings, err.Error())
	}
	if r.Late > 0 {
		warnings = append(warnings, fmt.Sprintf("warning: this shard was ready %s after the start time: its window began late", r.Late.Round(time.Millisecond)))
	}
	if r.sharded {
		d.RunID = r.Spec.LocalID()
	}
	return warnings, runErr
}

// Config is what a measuring command passes to Begin.
type Config struct {
	Spec Spec
	// ResultsTo is --results-to ("" for none); Open opens its backend.
	ResultsTo string
	Open      OpenBackend
	// StartAt and StartIn are --start-at and --start-in.
	StartAt string
	StartIn time.Duration
	// Setup is the target's unmeasured client and Prefix the shard's key
	// space there, for the clock probe (nil: not measured).
	Setup  storage.Backend
	Prefix string
}

// Begin prepares this process's part before any load: it opens the
// results place and proves it writable, resolves the start time, and
// measures the clock against the storage service. It returns nil for an
// unsharded run without --results-to or a start time. Mistakes in the
// settings are usage.Errors.
func Begin(ctx context.Context, c Config) (*Run, error) {
	if !c.Spec.Active() && c.ResultsTo == "" && c.StartAt == "" && c.StartIn == 0 {
		return nil, nil
	}
	r := &Run{Spec: c.Spec, Prefix: c.Prefix, sharded: c.Spec.Active()}
	if c.ResultsTo != "" {
		if !c.Spec.Active() {
			r.Spec = Spec{Index: 0, Count: 1, RunID: c.Spec.RunID, Engine: EngineFlag}
		}
		p, err := OpenPlace(ctx, c.ResultsTo, c.Open)
		if err != nil {
			return nil, usage.Wrap(err)
		}
		r.Place = p
		if err := p.CheckWritable(ctx, r.Spec); err != nil {
			p.Close()
			return nil, usage.Wrap(err)
		}
	}
	t, err := ResolveStart(ctx, c.StartAt, c.StartIn, r.Spec, r.Place)
	if err != nil {
		r.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, usage.Wrap(err)
	}
	r.StartAt = t
	if c.Setup != nil && r.Spec.Active() {
		if clk, err := MeasureClock(ctx, c.Setup, c.Prefix+".objbench-clock"); err == nil {
			r.SetClock(clk)
		}
	}
	return r, nil
}

// Close releases the results place.
func (r *Run) Close() {
	if r != nil && r.Place != nil {
		r.Place.Close()
	}
}

// SaveID is the id the run's document is saved under in the results
// database: a shard's own id when the run has several shards (see
// Finish), else id.
func (r *Run) SaveID(id string) string {
	if r != nil && r.sharded {
		return r.Spec.LocalID()
	}
	return id
}
