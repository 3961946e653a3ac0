package load

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

// Strategy names, from the SDK's default to the most that one client can
// do (docs/strategies.md).
const (
	SDKDefault       = "sdk-default"
	SingleRequest    = "single-request"
	ReusedConnection = "reused-connection"
	ParallelRequests = "parallel"
	HTTP2            = "http2"
)

// StrategySpec is one way of moving N objects: the connection strategy,
// upload style, client lifetime and requests in flight.
type StrategySpec struct {
	Name    string
	Conn    nettrace.Strategy
	Upload  storage.UploadStyle
	Clients ClientMode
	// Concurrency is the requests in flight; 0 means all objects at once.
	Concurrency int
	// Description says what the strategy stands for, for --help and notes.
	Description string
}

// Strategies returns the five strategies. sdkUpload is the provider's
// default upload path (GCS: a resumable session of two requests).
func Strategies(sdkUpload storage.UploadStyle, parallel int) []StrategySpec {
	return []StrategySpec{
		{SDKDefault, nettrace.Fresh, sdkUpload, PerOp, 1, "a new SDK client per object, the SDK's default upload, no connection reuse"},
		{SingleRequest, nettrace.Fresh, storage.UploadSingle, PerWorker, 1, "one request per object, a new connection each"},
		{ReusedConnection, nettrace.Pooled, storage.UploadSingle, PerWorker, 1, "one request per object, sequential, one keep-alive connection"},
		{ParallelRequests, nettrace.Pooled, storage.UploadSingle, Shared, parallel, fmt.Sprintf("%d requests in flight over an HTTP/1.1 pool", parallel)},
		{HTTP2, nettrace.H2, storage.UploadSingle, Shared, 0, "every object a concurrent stream over one HTTP/2 connection"},
	}
}

// StrategyResult is one row of the strategies table.
type StrategyResult struct {
	Spec          StrategySpec
	Op            string
	Objects       int
	Size          int64
	Wall          time.Duration
	Count, Errors int64
	ErrorsByClass map[string]int64
	P50, P99      time.Duration
	Connections   int64
	TLSHandshakes int64
	Requests      int64
	// RTT is the round trip used to express phases in round trips.
	RTT time.Duration
	// PhaseMean is the mean time per successful object in each phase.
	PhaseMean [nettrace.NumPhases]time.Duration
	// Protocols seen, e.g. {"h2": 50}.
	Protocols map[string]int64
	// First and Later are the mean phases of each worker's first request
	// and of the later ones (the first-vs-later table), with their totals.
	First, Later           [nettrace.NumPhases]time.Duration
	FirstTotal, LaterTotal time.Duration
	FirstN, LaterN         int64
	Available              bool
	Reason                 string
	FirstError             string
}

// RTTs expresses phase p in round trips per object.
func (r *StrategyResult) RTTs(p nettrace.Phase) float64 {
	if r.RTT <= 0 {
		return 0
	}
	return float64(r.PhaseMean[p]) / float64(r.RTT)
}

// sampleTotals accumulates what the table needs beyond the histograms.
// One per worker (a Sink), merged after the step.
type sampleTotals struct {
	n                      int64
	phases                 [nettrace.NumPhases]time.Duration
	minConnect, minWait    time.Duration
	protos                 map[string]int64
	first, later           [nettrace.NumPhases]time.Duration
	firstTotal, laterTotal time.Duration
	firstN, laterN         int64
}

// Add tallies one sample of the worker.
func (t *sampleTotals) Add(s *nettrace.Sample) {
	if !s.OK() {
		return
	}
	t.n++
	for i, d := range s.Phases {
		t.phases[i] += d
	}
	if c := s.Phases[nettrace.Connect]; c > 0 && (t.minConnect == 0 || c < t.minConnect) {
		t.minConnect = c
	}
	if w := s.Phases[nettrace.Wait]; w > 0 && (t.minWait == 0 || w < t.minWait) {
		t.minWait = w
	}
	if t.protos == nil {
		t.protos = map[string]int64{}
	}
	t.protos[s.Proto]++
	if s.Seq == 0 {
		t.firstN++
		t.firstTotal += s.Total()
		for i, d := range s.Phases {
			t.first[i] += d
		}
	} else {
		t.laterN++
		t.laterTotal += s.Total()
		for i, d := range s.Phases {
			t.later[i] += d
		}
	}
}

// merge adds o's tallies to t.
func (t *sampleTotals) merge(o *sampleTotals) {
	t.n += o.n
	for i := range t.phases {
		t.phases[i] += o.phases[i]
		t.first[i] += o.first[i]
		t.later[i] += o.later[i]
	}
	t.minConnect = minPositive(t.minConnect, o.minConnect)
	t.minWait = minPositive(t.minWait, o.minWait)
	for p, n := range o.protos {
		if t.protos == nil {
			t.protos = map[string]int64{}
		}
		t.protos[p] += n
	}
	t.firstTotal += o.firstTotal
	t.laterTotal += o.laterTotal
	t.firstN += o.firstN
	t.laterN += o.laterN
}

// minPositive is the smaller of a and b that is above zero (0: neither).
func minPositive(a, b time.Duration) time.Duration {
	if a <= 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// StrategyRun measures the strategies on one target.
type StrategyRun struct {
	// NewClient makes a cold client for a strategy.
	NewClient func(spec StrategySpec) ClientFactory
	Timeout   time.Duration
	Setup     storage.Backend
	Prefix    string
	Objects   int
	Size      int64
	// RTT, when known (the lab), is used instead of the measured one.
	RTT time.Duration
	// Keys to download instead of the uploaded objects (--keys-from).
	Keys []string
	// SkipDownloads measures uploads only.
	SkipDownloads bool
	// Download, when ranged (--download ranged), reads each object objbench
	// wrote in byte ranges over a pool, checked as they arrive, so that a
	// strategy's row is its ranged download; keys named by Keys are read
	// in one stream as before (their bytes are not objbench's).
	Download Download
	// Progress, when set, is told each row as it starts.
	Progress func(op string, spec StrategySpec)
	Written  KeySet
}

// Run uploads then downloads the objects with every strategy.
func (sr *StrategyRun) Run(ctx context.Context, specs []StrategySpec) ([]*StrategyResult, error) {
	payload := BodyOf(sr.Size)
	var results []*StrategyResult
	// The downloads read the objects of the upload strategy that stored
	// the most (the first to store them all), and only those it stored: a
	// failed upload leaves no object to ask for.
	var readable []string
	for _, spec := range specs {
		keys := make([]string, sr.Objects)
		for i := range keys {
			keys[i] = fmt.Sprintf("%sstrategies/%s/%d", sr.Prefix, spec.Name, i)
		}
		var stored Stored
		do := func(ctx context.Context, b storage.Backend, key string) error {
			sr.Written.Add(key)
			err := b.Put(ctx, key, payload.Reader(), sr.Size)
			if err == nil {
				stored.Add(key)
			}
			return err
		}
		res, err := sr.runOne(ctx, spec, "put", keys, do)
		if err != nil {
			return results, err
		}
		results = append(results, res)
		if got := stored.Keys(); len(got) > len(readable) {
			readable = got
		}
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
	}
	if len(sr.Keys) > 0 {
		readable = sr.Keys
	}
	for _, spec := range specs {
		if sr.SkipDownloads {
			break
		}
		if readable == nil {
			results = append(results, &StrategyResult{Spec: spec, Op: "get", Objects: sr.Objects, Size: sr.Size,
				Reason: "no object to download: every upload failed (name some with --keys-from)"})
			continue
		}
		keys := readable
		do := func(ctx context.Context, b storage.Backend, key string) error {
			_, err := b.Get(ctx, key, discard{})
			return err
		}
		if sr.Download.Mode == DownloadRanged && len(sr.Keys) == 0 {
			d, size := sr.Download, sr.Size
			do = func(ctx context.Context, b storage.Backend, key string) error { return d.Get(ctx, b, key, size) }
		}
		res, err := sr.runOne(ctx, spec, "get", keys, do)
		if err != nil {
			return results, err
		}
		results = append(results, res)
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
	}
	return results, nil
}

func (sr *StrategyRun) runOne(ctx context.Context, spec StrategySpec, op string, keys []string, do DoFunc) (*StrategyResult, error) {
	if sr.Progress != nil {
		sr.Progress(op, spec)
	}
	conc := spec.Concurrency
	if conc <= 0 {
		conc = len(keys)
	}
	r := &Runner{NewClient: sr.NewClient(spec), Timeout: sr.Timeout, NewSink: func() Sink { return &sampleTotals{} }}
	st := &Step{Workload: "strategies", Op: op, Size: sr.Size, Concurrency: min(conc, len(keys)), Requests: len(keys),
		Clients: spec.Clients, Key: func(i int) string { return keys[i%len(keys)] }, Do: do}
	res, err := r.Run(ctx, st)
	if err != nil {
		return &StrategyResult{Spec: spec, Op: op, Objects: len(keys), Size: sr.Size, Reason: err.Error()}, nil
	}
	var totals sampleTotals
	for _, k := range res.Sinks {
		totals.merge(k.(*sampleTotals))
	}
	sum := res.Summary
	out := &StrategyResult{
		Spec: spec, Op: op, Objects: len(keys), Size: sr.Size, Wall: res.Wall,
		Count: sum.Count, Errors: sum.Errors, ErrorsByClass: sum.ErrorsByClass,
		P50: ms(sum.TotalMs.P50), P99: ms(sum.TotalMs.P99),
		Connections: res.Connections, TLSHandshakes: res.TLSHandshakes, Requests: sum.Requests,
		Protocols: totals.protos, Available: sum.Count > 0, FirstError: res.FirstError,
		FirstN: totals.firstN, LaterN: totals.laterN,
	}
	if totals.n > 0 {
		for i := range out.PhaseMean {
			out.PhaseMean[i] = totals.phases[i] / time.Duration(totals.n)
		}
	}
	if totals.firstN > 0 {
		out.FirstTotal = totals.firstTotal / time.Duration(totals.firstN)
		for i := range out.First {
			out.First[i] = totals.first[i] / time.Duration(totals.firstN)
		}
	}
	if totals.laterN > 0 {
		out.LaterTotal = totals.laterTotal / time.Duration(totals.laterN)
		for i := range out.Later {
			out.Later[i] = totals.later[i] / time.Duration(totals.laterN)
		}
	}
	// A TCP handshake is one round trip: the fastest connect is the best
	// estimate of the path's RTT; without new connections, the fastest wait.
	switch {
	case sr.RTT > 0:
		out.RTT = sr.RTT
	case totals.minConnect > 0:
		out.RTT = totals.minConnect
	default:
		out.RTT = totals.minWait
	}
	if !out.Available {
		out.Reason = "failed"
		if len(sum.ErrorsByClass) > 0 {
			classes := make([]string, 0, len(sum.ErrorsByClass))
			for c := range sum.ErrorsByClass {
				classes = append(classes, c)
			}
			slices.Sort(classes)
			out.Reason = fmt.Sprintf("every request failed (%s): %s", classes[0], res.FirstError)
		}
	}
	switch {
	case spec.Name == HTTP2 && out.Available && out.Protocols["h2"] == 0:
		out.Available, out.Reason = false, "HTTP/2 not offered by the endpoint"
	case spec.Name == HTTP2 && !out.Available:
		out.Reason = "HTTP/2 not offered by the endpoint (" + res.FirstError + ")"
	}
	return out, nil
}

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// StrategySweep measures the strategies at each size on one target, each
// size under a prefix of its own, then deletes what it wrote.
type StrategySweep struct {
	// NewClient makes a cold client for a strategy.
	NewClient func(spec StrategySpec) ClientFactory
	Timeout   time.Duration
	// Setup is the unmeasured client; Prefix is the run's, Keep the keys
	// that were there before (never deleted).
	Setup   storage.Backend
	Prefix  string
	Keep    map[string]bool
	Objects int
	Sizes   []int64
	// RTT, Keys, SkipDownloads and Download are as in StrategyRun.
	RTT           time.Duration
	Keys          []string
	SkipDownloads bool
	Download      Download
	// Progress, when set, is told each strategy as it starts.
	Progress func(op string, size int64, spec StrategySpec)
}

// Run measures every size in turn until one fails, then cleans up. It
// returns the results so far, the error that stopped the sweep, and the
// cleanup's error.
func (s *StrategySweep) Run(ctx context.Context, specs []StrategySpec) (all []*StrategyResult, runErr, cleanupErr error) {
	var written []*KeySet
	for _, size := range s.Sizes {
		sr := &StrategyRun{NewClient: s.NewClient, Timeout: s.Timeout, Setup: s.Setup,
			Prefix:  s.Prefix + units.FormatSize(size) + "/",
			Objects: s.Objects, Size: size, RTT: s.RTT, Keys: s.Keys, SkipDownloads: s.SkipDownloads, Download: s.Download}
		if s.Progress != nil {
			sr.Progress = func(op string, spec StrategySpec) { s.Progress(op, size, spec) }
		}
		written = append(written, &sr.Written)
		res, err := sr.Run(ctx, specs)
		all = append(all, res...)
		if err != nil {
			runErr = err
			break
		}
	}
	cleanup := &Session{Setup: s.Setup, Prefix: s.Prefix, Keep: s.Keep}
	for _, w := range written {
		for k := range w.All() {
			cleanup.Written.Add(k)
		}
	}
	_, cleanupErr = cleanup.Cleanup(2*time.Minute + s.Timeout)
	return all, runErr, cleanupErr
}
