// Package load drives storage operations: a Runner executes Steps with a
// number of workers, each with a cold client of its own, bounded by a count
// and a duration. A Step says what to do; it never times anything itself:
// timing belongs to internal/nettrace.
package load

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

// Client is one worker's storage client and the transport that times it.
type Client struct {
	Backend   storage.Backend
	Transport *nettrace.Transport
}

// Close releases the client and its connections.
func (c *Client) Close() {
	if c.Backend != nil {
		c.Backend.Close()
	}
	if c.Transport != nil {
		c.Transport.CloseIdleConnections()
	}
}

// ClientFactory makes a new, cold client.
type ClientFactory func(ctx context.Context) (*Client, error)

// DoFunc performs one operation on key. It must read any response body to
// its end before returning.
type DoFunc func(ctx context.Context, b storage.Backend, key string) error

// ClientMode says how a step's workers get their clients.
type ClientMode int

// Client modes.
const (
	// PerWorker gives each worker a cold client of its own (the default).
	PerWorker ClientMode = iota
	// Shared gives all workers one client: one connection pool, or one
	// HTTP/2 connection carrying every stream.
	Shared
	// PerOp makes a new client for every operation, as a naive program
	// that builds its SDK client per object does.
	PerOp
)

// Step is one measured unit: one op at one size and concurrency.
type Step struct {
	// Clients says how workers get clients; PerWorker by default.
	Clients     ClientMode
	Workload    string
	Op          string
	Size        int64
	Concurrency int
	// Requests bounds the number of operations across all workers.
	Requests int
	// Duration bounds the step's wall time; zero means no bound beyond Requests.
	Duration time.Duration
	// Key returns the key of the i-th operation (0-based across workers).
	Key func(i int) string
	Do  DoFunc
	// Pacer says when each operation starts; nil is ClosedLoop.
	Pacer Pacer
	// LatencyFrom is where an open-loop step measures latency from:
	// FromIntended (the default) or FromActual; the other is kept beside.
	LatencyFrom string
	// Pick, when set, makes a mixed step: it chooses each operation's op,
	// key and size (Key and Do are then unused), and the result has one
	// part per op.
	Pick func(i int) Choice
	// Parts, on a GET step of a ranged download, records its parts.
	Parts *PartStats
}

// Moved is the payload bytes one operation moves: the size for GET and PUT,
// nothing for HEAD and DELETE.
func (s *Step) Moved() int64 {
	if s.Op == "get" || s.Op == "put" {
		return s.Size
	}
	return 0
}

// Paced says the step's requests go at a schedule (a rate or a mix's
// draws) rather than as fast as they complete: progress shows its pace.
func (s *Step) Paced() bool { return s.Pacer != nil || s.Pick != nil }

// Name is a short label such as "get 1KiB c=1".
func (s *Step) Name() string {
	if s.Workload == Ranges && s.Parts != nil { // the sweep's steps differ by their parts
		return s.Op + " " + units.FormatSize(s.Size) + " parts=" + units.FormatSize(s.Parts.Size) + "x" + strconv.Itoa(s.Parts.Parallel)
	}
	return s.Op + " " + units.FormatSize(s.Size) + " c=" + strconv.Itoa(s.Concurrency)
}

// StepResult is what a step measured.
type StepResult struct {
	Step        *Step
	Summary     stats.Summary
	Wall        time.Duration
	Interrupted bool
	// Connections and TLSHandshakes opened by the step's workers.
	Connections   int64
	TLSHandshakes int64
	// Histograms are the step's encoded TTFB and total histograms, for the
	// results database.
	Histograms map[string][]byte
	// FirstError is the first failure's message.
	FirstError string
	// Kept are the step's raw samples (see Runner.Keep): one reservoir, the
	// workers' gathered.
	Kept []*stats.Reservoir
	// Sinks are the workers' sinks (see Runner.NewSink).
	Sinks []Sink
	// StartLag is the most an operation started after its pacer's
	// intended start (0 in closed loop, which intends none).
	StartLag time.Duration
	// Open-loop facts (issue 16): Uncorrected is the summary from the
	// other latency origin (nil in closed loop); Late counts operations
	// that started after their intended time, Dropped those dropped for
	// being later than the pacer's MaxLate.
	Uncorrected   *stats.Summary
	Late, Dropped int64
	// StartLags is the distribution of actual send - intended start: the
	// pacer's own timing error, plus any wait for a free worker.
	StartLags stats.Dist
	// Series is the step's results per interval: SeriesInterval long, the
	// Runner's Interval doubled as often as the step outlasted
	// stats.MaxIntervals of them (0: one interval, the whole step).
	Series         []stats.Interval
	SeriesInterval time.Duration
	// Parts are a mixed step's results, one per op, each with its own
	// histograms and series (the mixed step itself then holds none).
	Parts []*StepResult
	// RateSteps are an open loop's rates one by one (steps, or a ramp's
	// segments; nil at one rate): what each offered and what came of it.
	RateSteps []RateStep
}

// Runner executes steps.
type Runner struct {
	NewClient ClientFactory
	// Timeout bounds each operation.
	Timeout time.Duration
	// Progress, when set, is called from one goroutine about ten times a
	// second with the operations done so far.
	Progress func(st *Step, done int64, elapsed time.Duration)
	// Keep is how many raw samples a step keeps: each worker keeps a
	// uniform subset of its own share in a reservoir without a lock (all
	// windows of one array), gathered after the step into StepResult.Kept
	// for the caller to merge.
	Keep int
	// NewSink, when set, makes one Sink per worker of a step, for tallies
	// beyond the histograms; StepResult.Sinks holds them to be merged.
	NewSink func() Sink
	// Interval is the length of each interval of a step's series (0: one
	// interval, the whole step). OnInterval, when set, is called at the
	// end of each interval with the intervals of every op.
	Interval   time.Duration
	OnInterval func(st *Step, ivs []stats.Interval)
	// Ready, when set, is called once a step's clients are made, just
	// before its clock starts: a shard waits there for the run's common
	// start time, so that client set-up does not shift its window.
	Ready func(ctx context.Context)
}

// Sink receives every sample of one worker, from that worker only: it
// needs no lock.
type Sink interface {
	Add(*nettrace.Sample)
}

// Run executes st. It returns partial results when ctx is cancelled, with
// Interrupted set; an error only when no worker could start. Its steps, in
// order: the clients (stepClients), the step's context and budgets, the
// workers (runWorkers), then the results (collect).
func (r *Runner) Run(ctx context.Context, st *Step) (*StepResult, error) {
	conc := max(st.Concurrency, 1)
	sc := &stepClients{newClient: r.NewClient}
	defer sc.close()
	workerClients, err := sc.forWorkers(ctx, st.Clients, conc)
	if err != nil {
		return nil, err
	}
	// Per-worker state, merged after the step; recorders in one shard
	// per CPU (see shard).
	sw := &stepWorkers{shards: newShards(conc), lags: make([]time.Duration, conc), sinks: make([]Sink, conc),
		rates: newRateRows(st)}
	// The workers' reservoirs are windows of one array, gathered in place
	// after the step: the step's samples are kept once.
	keep := min(r.Keep, st.Requests)
	sw.kept = stats.Split(keep, conc)
	if r.Ready != nil {
		r.Ready(ctx)
	}
	runCtx := ctx
	if st.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, st.Duration)
		defer cancel()
	}
	// The collector's budget for the step (GOGC and a memory limit, unless
	// the user set them), and its work across it, reported with the step.
	gc, gcDone := stats.GCBudget(os.Getenv, keep)
	defer gcDone()
	gc0 := stats.ReadGCCounters()
	use0 := markUsage()
	start := time.Now()
	stopProgress := r.startProgress(st, &sw.done, start)
	sw.start = start
	if o, ok := st.Pacer.(*OpenLoop); ok {
		o.Start(start)
		sw.start = o.start // the schedule's time zero (Start keeps the first)
	}
	stopSeries, series := r.startSeries(st, sw.shards, start, &sw.inflight, &sw.peak, sc.connsOpened)
	r.runWorkers(runCtx, st, sc, workerClients, sw)
	wall := time.Since(start)
	use1 := markUsage()
	gc.Since(gc0, stats.ReadGCCounters())
	gcDone()
	stopProgress()
	stopSeries()

	res := r.collect(ctx, st, sw, series, wall, keep)
	use1.since(use0, &res.Summary)
	res.Summary.GC = &gc
	sc.count(res)
	if p := sc.perOpErr.Load(); p != nil && res.Summary.Count == 0 && res.Summary.Errors == 0 {
		return nil, *p
	}
	if p := sw.firstErr.Load(); p != nil {
		res.FirstError = *p
	}
	return res, nil
}

// stepClients are the clients one step makes: each kept, to count its
// connections, and closed after the step.
type stepClients struct {
	newClient func(context.Context) (*Client, error)
	mu        sync.Mutex
	all       []*Client
	// perOpErr is the first error making a PerOp client.
	perOpErr atomic.Pointer[error]
}

// open makes a client and keeps it.
func (sc *stepClients) open(ctx context.Context) (*Client, error) {
	c, err := sc.newClient(ctx)
	if err != nil {
		return nil, err
	}
	sc.mu.Lock()
	sc.all = append(sc.all, c)
	sc.mu.Unlock()
	return c, nil
}

// close closes every client made (after the workers are done).
func (sc *stepClients) close() {
	for _, c := range sc.all {
		c.Close()
	}
}

// forWorkers makes each worker's client: its own (PerWorker), one for all
// (Shared), or none (PerOp: one per operation, see getter).
func (sc *stepClients) forWorkers(ctx context.Context, mode ClientMode, conc int) ([]*Client, error) {
	workerClients := make([]*Client, conc)
	switch mode {
	case PerWorker:
		for w := range workerClients {
			c, err := sc.open(ctx)
			if err != nil {
				return nil, err
			}
			workerClients[w] = c
		}
	case Shared:
		c, err := sc.open(ctx)
		if err != nil {
			return nil, err
		}
		for w := range workerClients {
			workerClients[w] = c
		}
	}
	return workerClients, nil
}

// getter is a worker's way to its client: c, or without one (PerOp) a
// new client, closed after its operation.
func (sc *stepClients) getter(c *Client) func(context.Context) (*Client, func(), error) {
	return func(ctx context.Context) (*Client, func(), error) {
		if c != nil {
			return c, func() {}, nil
		}
		pc, err := sc.open(ctx)
		if err != nil {
			sc.perOpErr.CompareAndSwap(nil, &err)
			return nil, nil, err
		}
		return pc, pc.Close, nil
	}
}

// connsOpened is the connections the step's clients have opened so far.
func (sc *stepClients) connsOpened() int64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var n int64
	for _, c := range sc.all {
		if c.Transport != nil {
			n += c.Transport.ConnsOpened()
		}
	}
	return n
}

// count adds the step's connections and TLS handshakes to res.
func (sc *stepClients) count(res *StepResult) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, c := range sc.all {
		if c.Transport != nil {
			res.Connections += c.Transport.ConnsOpened()
			res.TLSHandshakes += c.Transport.TLSHandshakes()
		}
	}
}

// stepWorkers is the workers' state across one step, merged after it.
type stepWorkers struct {
	shards         []*shard
	lags           []time.Duration
	sinks          []Sink
	kept           []*stats.Reservoir
	next, done     atomic.Int64
	firstErr       atomic.Pointer[string]
	inflight, peak atomic.Int64
	// rates are the open loop's rows by rate step (nil without steps);
	// start is the schedule's time zero.
	rates *rateRows
	start time.Time
}

// runWorkers runs the step's workers until they are done.
func (r *Runner) runWorkers(runCtx context.Context, st *Step, sc *stepClients, workerClients []*Client, sw *stepWorkers) {
	var wg sync.WaitGroup
	for w := range workerClients {
		if r.NewSink != nil {
			sw.sinks[w] = r.NewSink()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker's own child of the step's context: every
			// operation's timeout context registers with it, not with the
			// context that all workers share, whose lock they would then
			// take twice per operation.
			wctx, cancel := context.WithCancel(runCtx)
			defer cancel()
			r.work(wctx, st, w, sc.getter(workerClients[w]), worker{shard: sw.shards[w%len(sw.shards)], kept: sw.kept[w], sink: sw.sinks[w], lag: &sw.lags[w],
				inflight: &sw.inflight, peak: &sw.peak, rates: sw.rates, start: sw.start}, &sw.next, &sw.done, &sw.firstErr)
		}()
	}
	wg.Wait()
}

// collect merges the workers' state into the step's result.
func (r *Runner) collect(ctx context.Context, st *Step, sw *stepWorkers, series *seriesOf, wall time.Duration, keep int) *StepResult {
	res := r.results(st, sw.shards, series, wall, sw.rates)
	res.StartLags = lagDist(sw.shards)
	res.Interrupted = ctx.Err() != nil
	res.Kept = []*stats.Reservoir{stats.Gather(sw.kept, keep)}
	if r.NewSink != nil {
		res.Sinks = sw.sinks
	}
	for _, l := range sw.lags {
		res.StartLag = max(res.StartLag, l)
	}
	return res
}

// usageMark is the process's CPU time and run-queue wait at one moment.
type usageMark struct {
	cpu, wait     time.Duration
	cpuOK, waitOK bool
}

func markUsage() usageMark {
	var m usageMark
	m.cpu, m.cpuOK = stats.ProcessCPU()
	m.wait, m.waitOK = stats.ProcessRunWait()
	return m
}

// since sets the step's client CPU (the whole process's, across the
// step) and run-queue wait from the mark at its start, where known.
func (m usageMark) since(start usageMark, s *stats.Summary) {
	if start.cpuOK {
		s.ClientCPU = m.cpu - start.cpu
	}
	if start.waitOK {
		s.ClientRunWait = max(m.wait-start.wait, 0)
	}
}

// worker is one worker's own state, merged after the step.
type worker struct {
	shard          *shard
	kept           *stats.Reservoir
	sink           Sink
	lag            *time.Duration
	inflight, peak *atomic.Int64
	rates          *rateRows
	start          time.Time
}

// work is the one worker loop shared by every operation.
func (r *Runner) work(ctx context.Context, st *Step, w int, client func(context.Context) (*Client, func(), error),
	ws worker, next, done *atomic.Int64, firstErr *atomic.Pointer[string]) {
	var pacer Pacer = ClosedLoop{}
	if st.Pacer != nil {
		pacer = st.Pacer
	}
	for seq := 0; ; seq++ {
		i := int(next.Add(1) - 1)
		if i >= st.Requests || ctx.Err() != nil {
			return
		}
		ch := Choice{Op: st.Op, Size: st.Moved(), Do: st.Do}
		if st.Pick != nil {
			ch = st.Pick(i)
		}
		// The pacer's intended start is where an open-loop step measures
		// latency from; closed loop has none.
		intended, err := pacer.Wait(ctx, i)
		if errors.Is(err, ErrDropped) {
			ws.shard.drop(ch.Op, true)
			seq--
			continue
		}
		if err != nil {
			return
		}
		late := false
		if o, ok := pacer.(*OpenLoop); ok && !intended.IsZero() {
			late = time.Since(intended) > o.LateAfter()
		}
		if st.Pick == nil {
			ch.Key = st.Key(i)
		}
		key := ch.Key
		c, release, err := client(ctx)
		if err != nil {
			return
		}
		n := ws.inflight.Add(1)
		for p := ws.peak.Load(); n > p && !ws.peak.CompareAndSwap(p, n); p = ws.peak.Load() {
		}
		s, err := Timed(ctx, r.timeout(), func(ctx context.Context) error { return ch.Do(ctx, c.Backend, key) })
		ws.inflight.Add(-1)
		release()
		if err != nil && ctx.Err() != nil {
			// Stopped by the run's bound or by the user, not a failure of
			// the service: dropped, neither latency nor error. Its answers
			// so far (throttled ones the SDK was backing off from) still
			// count in its rate step's share.
			if ws.rates != nil && !intended.IsZero() {
				s.Key = key
				ws.rates.cut(ch.Op, intended.Sub(ws.start), &s)
			}
			return
		}
		s.Op, s.Key, s.Size, s.Worker, s.Seq = ch.Op, key, ch.Size, w, seq
		if !intended.IsZero() {
			*ws.lag = max(*ws.lag, s.Start.Sub(intended))
		}
		if err != nil {
			s.Err = err.Error()
			s.ErrClass = string(storage.Classify(err))
			msg := s.Err
			firstErr.CompareAndSwap(nil, &msg)
		}
		p := ws.shard.record(st, ch.Op, &s, intended, late)
		if ws.rates != nil && !intended.IsZero() {
			ws.rates.add(ch.Op, intended.Sub(ws.start), s.End.Sub(ws.start), p)
		}
		ws.kept.Add(0, p)
		if ws.sink != nil {
			ws.sink.Add(p)
		}
		done.Add(1)
	}
}

func (r *Runner) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 30 * time.Second
}

func (r *Runner) startProgress(st *Step, done *atomic.Int64, start time.Time) (stop func()) {
	if r.Progress == nil {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				r.Progress(st, done.Load(), time.Since(start))
				return
			case <-t.C:
				r.Progress(st, done.Load(), time.Since(start))
			}
		}
	}()
	return func() { close(quit); <-finished }
}
