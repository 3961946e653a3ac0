// Package merge makes one run from the documents its shards wrote
// (`objbench run --shard I/N --results-to URL`): histograms are added
// bucket for bucket, so every quantile is that of the union of all
// requests (never an average of the shards' percentiles); throughput is
// computed over the window where every shard was running, with the whole
// window beside it; each shard keeps a row, and a missing or partial
// shard is named with what the result lacks.
package merge

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/usage"
)

// Input is one shard document and where it was read from.
type Input struct {
	Name string
	File *shard.File
}

// Result is the merged run: its document and, per result, the encoded
// histograms and series for the results database.
type Result struct {
	Doc        *document.Document
	Histograms []map[string][]byte
	// ShardSeries are each result's per-shard rates over time, for plots.
	ShardSeries [][]ShardRate
}

// Incomplete reports whether shards are missing or partial.
func (r *Result) Incomplete() bool {
	return len(r.Doc.Merge.Missing) > 0 || len(r.Doc.Merge.Partial) > 0
}

// CheckExpect refuses a negative expected shard count before any shard is
// read (0 expects none in particular); its error is the user's to fix,
// naming the field (Expect).
func CheckExpect(expect int) error {
	if expect < 0 {
		return usage.Fieldf("{Expect} must be a positive shard count, got %d", expect)
	}
	return nil
}

// Expected is the error of a run merged with --expect: nil when every
// expected shard was merged whole.
func (r *Result) Expected(expect int) error {
	if expect <= 0 || !r.Incomplete() {
		return nil
	}
	m := r.Doc.Merge
	return fmt.Errorf("run %s is incomplete: %d of %d shards merged, missing %v, partial %v",
		r.Doc.RunID, len(m.Merged), m.Expected, m.Missing, m.Partial)
}

// Label adds labels to the merged run's (the shards' own are kept).
func (r *Result) Label(labels map[string]string) {
	for k, v := range labels {
		if r.Doc.Labels == nil {
			r.Doc.Labels = map[string]string{}
		}
		r.Doc.Labels[k] = v
	}
}

// MemoryLimit is the soft heap limit objbench merge runs under (unless
// GOMEMLIMIT says otherwise): what a merge keeps of each shard is small,
// but decoding a hundred documents makes garbage that the collector would
// otherwise let grow to twice the live heap.
const MemoryLimit = 80 << 20

// LimitMemory sets MemoryLimit as the process's soft heap limit, unless
// the user set GOMEMLIMIT (getenv reads the environment).
func LimitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}

// Merge merges the shard documents of one run. expect is the shard count
// to hold them to (0: the count the shards were started with).
func Merge(in []Input, expect int) (*Result, error) {
	m := NewMerger(expect)
	for _, x := range in {
		if err := m.Add(x); err != nil {
			return nil, err
		}
	}
	return m.Result()
}

// Merger merges shard documents as they are read. A document keeps,
// once decoded, only what the merge needs: its results, windows, and
// interval histograms in binary form.
type Merger struct {
	expect int
	in     []Input
	seen   map[int]string
	// sums are the intervals' counts added so far, per result, at the
	// width (seconds) in widths: the coarsest series interval added.
	sums   map[int][]stats.Interval
	widths map[int]float64
}

// NewMerger starts a merge (expect as for Merge).
func NewMerger(expect int) *Merger {
	return &Merger{expect: expect, seen: map[int]string{}, sums: map[int][]stats.Interval{}, widths: map[int]float64{}}
}

// Add takes one shard document: one of the run's, and no shard twice.
func (m *Merger) Add(x Input) error {
	f := x.File
	if len(m.in) > 0 {
		ref := m.in[0]
		switch {
		case f.RunID != ref.File.RunID:
			return fmt.Errorf("documents from different runs: %s is of run %s, %s of run %s: merge one run's documents (URL/RUN-ID/)",
				ref.Name, ref.File.RunID, x.Name, f.RunID)
		case f.Shard.Count != ref.File.Shard.Count:
			return fmt.Errorf("%s is shard %d of %d, but %s is of %d: not one run", x.Name, f.Shard.Index, f.Shard.Count, ref.Name, ref.File.Shard.Count)
		}
	}
	if prev, ok := m.seen[f.Shard.Index]; ok {
		return fmt.Errorf("shard %d appears twice: %s and %s", f.Shard.Index, prev, x.Name)
	}
	width := func(k int) float64 {
		if k < len(f.Results) {
			return seriesWidth(&f.Results[k], f.Steps[k].Series)
		}
		return seriesWidth(nil, f.Steps[k].Series)
	}
	for k, sd := range f.Steps {
		if sd.Series != nil && len(m.sums[k]) > 0 {
			a, b := m.widths[k], width(k)
			if _, err := coarser(min(a, b), max(a, b)); err != nil {
				return fmt.Errorf("%s result %d: %w", x.Name, k, err)
			}
		}
	}
	m.seen[f.Shard.Index] = x.Name
	for k, sd := range f.Steps {
		if c := sd.Series; c != nil {
			w := width(k)
			if len(m.sums[k]) == 0 {
				m.widths[k] = w
			}
			// One divides the other (checked above): the finer of the two
			// is grouped into the coarser.
			if w > m.widths[k] {
				by, _ := coarser(m.widths[k], w)
				m.sums[k], m.widths[k] = coarsen(m.sums[k], by), w
			}
			by, _ := coarser(w, m.widths[k])
			m.sums[k] = addCounts(m.sums[k], c, by)
			// Added: only what the windows and rates need is kept.
			c.Late, c.Dropped, c.InFlight, c.NewConns, c.ErrorsByClass = nil, nil, nil, nil, nil
		}
	}
	m.in = append(m.in, x)
	return nil
}

// Result merges what was added.
func (m *Merger) Result() (*Result, error) {
	in, expect := m.in, m.expect
	if len(in) == 0 {
		return nil, fmt.Errorf("no shard documents to merge")
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].File.Shard.Index < in[j].File.Shard.Index })
	count := in[0].File.Shard.Count
	if expect == 0 {
		expect = count
	}
	ref := in[0].File
	doc := &document.Document{Envelope: ref.Envelope}
	doc.Command = "merge"
	doc.CutShort = nil // a shard's: the merge names its partial shards (Merge.Partial, Lacks)
	doc.Options = maps.Clone(ref.Options)
	delete(doc.Options, "shard")
	doc.Client = document.ThisClient()
	info := &document.MergeInfo{Expected: expect}
	present := map[int]bool{}
	var earliest time.Time
	var latest time.Time
	interrupted := false
	for _, x := range in {
		f := x.File
		present[f.Shard.Index] = true
		info.Merged = append(info.Merged, f.Shard.Index)
		if f.Interrupted || f.Shard.Failed != "" {
			info.Partial = append(info.Partial, f.Shard.Index)
			interrupted = true
		}
		st := f.Started()
		if earliest.IsZero() || st.Before(earliest) {
			earliest = st
		}
		if end := st.Add(time.Duration(f.DurationS * float64(time.Second))); end.After(latest) {
			latest = end
		}
	}
	for i := range max(expect, count) {
		if !present[i] {
			info.Missing = append(info.Missing, i)
		}
	}
	doc.StartedAt = earliest.UTC().Format(time.RFC3339)
	doc.DurationS = latest.Sub(earliest).Seconds()
	doc.Interrupted = interrupted
	offsets, clocks := clockOffsets(in)
	info.Clocks = clocks
	var measured []time.Duration
	for _, c := range clocks {
		measured = append(measured, time.Duration(c.OffsetMs*1e6))
	}
	info.ClockSpreadMs = spread(measured)

	steps := 0
	for _, x := range in {
		steps = max(steps, len(x.File.Results))
	}
	res := &Result{Doc: doc}
	for k := range steps {
		r, hists, ms, series, err := mergeStep(in, k, offsets, m.sums[k])
		if err != nil {
			return nil, err
		}
		doc.Results = append(doc.Results, r)
		res.Histograms = append(res.Histograms, hists)
		res.ShardSeries = append(res.ShardSeries, series)
		info.Steps = append(info.Steps, ms)
	}
	info.Lacks = lacks(in, info, steps)
	doc.Merge = info
	return res, nil
}

// clockOffsets are the offsets (local - service) to move each shard's
// windows by, by input order: a measured offset larger than its error
// bound, else 0; and every shard's estimate.
func clockOffsets(in []Input) ([]time.Duration, []document.ShardClock) {
	out := make([]time.Duration, len(in))
	var clocks []document.ShardClock
	for i, x := range in {
		sh := x.File.Shard
		if !sh.ClockMeasured {
			continue
		}
		c := document.ShardClock{Shard: sh.Index, OffsetMs: sh.ClockOffsetMs, ErrorMs: sh.ClockErrorMs}
		if math.Abs(sh.ClockOffsetMs) > sh.ClockErrorMs {
			out[i], c.Applied = time.Duration(sh.ClockOffsetMs*1e6), true
		}
		clocks = append(clocks, c)
	}
	return out, clocks
}

func spread(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	return float64(slices.Max(ds)-slices.Min(ds)) / 1e6
}

// window is a shard's measured window of one result on the service's
// clock, and its intervals.
type window struct {
	shard      int
	start, end time.Time
	res        *document.Result
	data       *shard.StepData
	partial    bool
}

func windowOf(x Input, k int, off time.Duration) (window, bool) {
	f := x.File
	if k >= len(f.Results) {
		return window{}, false
	}
	w := window{shard: f.Shard.Index, res: &f.Results[k], data: &f.Steps[k], partial: f.Interrupted || f.Shard.Failed != ""}
	if k < len(f.Shard.Windows) {
		w.start, _ = time.Parse(time.RFC3339Nano, f.Shard.Windows[k].Start)
		w.end, _ = time.Parse(time.RFC3339Nano, f.Shard.Windows[k].End)
	}
	if w.start.IsZero() || w.end.Before(w.start) { // no window recorded: the step's wall from the run's start
		w.start = f.Started()
		w.end = w.start.Add(time.Duration(f.Results[k].WallS * float64(time.Second)))
	}
	w.start, w.end = w.start.Add(-off), w.end.Add(-off)
	return w, true
}

// mergeStep merges result k across the shards that have it.
func mergeStep(in []Input, k int, offsets []time.Duration, sums []stats.Interval) (document.Result, map[string][]byte, document.MergedStep, []ShardRate, error) {
	var ws []window
	for i, x := range in {
		if w, ok := windowOf(x, k, offsets[i]); ok {
			ws = append(ws, w)
		}
	}
	r0 := *ws[0].res
	for _, w := range ws[1:] {
		if w.res.Workload != r0.Workload || w.res.Op != r0.Op || w.res.SizeBytes != r0.SizeBytes {
			return document.Result{}, nil, document.MergedStep{}, nil, fmt.Errorf("result %d is %s %s %d B in shard %d but %s %s %d B in shard %d: the shards ran different options",
				k, r0.Workload, r0.Op, r0.SizeBytes, ws[0].shard, w.res.Workload, w.res.Op, w.res.SizeBytes, w.shard)
		}
	}
	first, last, common0, common1 := ws[0].start, ws[0].end, ws[0].start, ws[0].end
	for _, w := range ws[1:] {
		first, last = minT(first, w.start), maxT(last, w.end)
		common0, common1 = maxT(common0, w.start), minT(common1, w.end)
	}
	whole := last.Sub(first)
	common := max(common1.Sub(common0), 0)

	hists := map[string][]byte{}
	sum := stats.NewSum()
	merged := map[string]stats.Dist{}
	for _, m := range []string{"ttfb", "total", "ttfb_uncorrected", "total_uncorrected"} {
		sum.Reset()
		have := false
		for _, w := range ws {
			if enc, ok := w.data.Histograms[m]; ok {
				have = true
				if err := sum.AddEncoded(enc); err != nil {
					return document.Result{}, nil, document.MergedStep{}, nil, fmt.Errorf("shard %d result %d %s: %w", w.shard, k, m, err)
				}
			}
		}
		if !have {
			continue
		}
		h := sum.Histogram()
		merged[m] = h.Dist()
		enc, err := h.Encode()
		if err != nil {
			return document.Result{}, nil, document.MergedStep{}, nil, err
		}
		hists[m] = []byte(enc)
	}
	r := sumResults(ws, whole, merged)
	if acc, err := mergeRecorders(ws); err != nil {
		return document.Result{}, nil, document.MergedStep{}, nil, fmt.Errorf("result %d: %w", k, err)
	} else if acc != nil {
		exactGroups(&r, acc.Summarize(r.SizeBytes, whole))
		if b, err := acc.Encode(); err == nil {
			hists[stats.RecorderMetric] = b
		}
	}
	width := seriesWidthOf(ws)
	series, perShard, err := mergeSeries(ws, first, sums, width)
	if err != nil {
		return document.Result{}, nil, document.MergedStep{}, nil, fmt.Errorf("result %d: %w", k, err)
	}
	if len(series) > 0 {
		r.SeriesIntervalS = width
	}
	if len(series) > 0 {
		b, err := stats.EncodeSeries(series)
		if err != nil {
			return document.Result{}, nil, document.MergedStep{}, nil, err
		}
		hists[stats.SeriesMetric] = b
		if b, err = json.Marshal(perShard); err == nil {
			hists[ShardRatesMetric] = b
		}
	}
	ms := document.MergedStep{Workload: r.Workload, Op: r.Op, SizeBytes: r.SizeBytes,
		CommonWindowS: common.Seconds(), WholeWindowS: whole.Seconds()}
	var ops, bytes float64
	for _, w := range ws {
		ops += float64(w.res.Count + w.res.Errors)
		bytes += w.res.AggregateMBps * 1e6 * w.res.WallS
	}
	ms.WholeOpsPerS, ms.WholeMBPerS = perS(ops, whole), perS(bytes/1e6, whole)
	if common > 0 {
		cOps, cBytes := inWindow(ws, common0, common1)
		ms.CommonOpsPerS, ms.CommonMBPerS = perS(cOps, common), perS(cBytes/1e6, common)
	}
	ms.Shards, ms.Stragglers, ms.OpsPerSSpreadPct = shardRows(ws, first)
	return r, hists, ms, perShard, nil
}

func perS(n float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}

func minT(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxT(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sumResults adds the shards' counts and takes the latency quantiles from
// the merged histograms. Fractions are weighted by the operations they are
// fractions of, so they are exact too. Distributions kept only as
// quantiles cannot be added: the pacer's start lag is the worst shard's,
// an upper bound, and so are the phases and the first and later requests
// unless the shards' recorders are there (exactGroups).
func sumResults(ws []window, whole time.Duration, merged map[string]stats.Dist) document.Result {
	r := *ws[0].res
	r.Count, r.Errors, r.Retries, r.Reconnects, r.SilentRetries = 0, 0, 0, 0, 0
	r.ErrorsByClass, r.PhasesMs = nil, nil
	r.FirstRequest, r.LaterRequests = stats.Group{}, stats.Group{}
	r.RateSteps, r.Knee, r.Wire = sumRateSteps(ws), nil, sumWire(ws)
	var reqs, reused, sent, waited, cpu, wait, bytes float64
	var conc int
	for _, w := range ws {
		x := w.res
		r.Count += x.Count
		r.Errors += x.Errors
		r.Retries += x.Retries
		r.Reconnects += x.Reconnects
		r.SilentRetries += x.SilentRetries
		conc += x.Concurrency
		for c, n := range x.ErrorsByClass {
			if r.ErrorsByClass == nil {
				r.ErrorsByClass = map[string]int64{}
			}
			r.ErrorsByClass[c] += n
		}
		n := float64(x.Count)
		reqs += x.RequestsPerOp * n
		reused += x.ReusedFraction * n
		sent += x.ExpectSent * n
		waited += x.ExpectWaited * n
		cpu += x.ClientCPUusPerOp * float64(x.Count+x.Errors)
		wait += x.ClientRunWaitUsPerOp * float64(x.Count+x.Errors)
		bytes += x.AggregateMBps * 1e6 * x.WallS
		r.PhasesMs = worstPhases(r.PhasesMs, x.PhasesMs)
		r.FirstRequest, r.LaterRequests = worstGroup(r.FirstRequest, x.FirstRequest), worstGroup(r.LaterRequests, x.LaterRequests)
	}
	r.Concurrency = conc
	n := float64(r.Count)
	frac := func(v float64) float64 {
		if n == 0 {
			return 0
		}
		return v / n
	}
	r.RequestsPerOp, r.ReusedFraction, r.ExpectSent, r.ExpectWaited = frac(reqs), frac(reused), frac(sent), frac(waited)
	if ops := float64(r.Count + r.Errors); ops > 0 {
		r.ClientCPUusPerOp, r.ClientRunWaitUsPerOp = cpu/ops, wait/ops
	}
	if bytes > 0 && r.ClientCPUsPerGB > 0 {
		r.ClientCPUsPerGB = cpu / 1e6 / (bytes / 1e9)
	}
	r.WallS = whole.Seconds()
	r.AggregateMBps = perS(bytes/1e6, whole)
	if d, ok := merged["ttfb"]; ok {
		r.TTFBms = d
	}
	if d, ok := merged["total"]; ok {
		r.TotalMs = d
		r.MBps = stats.Throughput{P50: mbps(r.SizeBytes, d.P50), P90: mbps(r.SizeBytes, d.P90), P99: mbps(r.SizeBytes, d.P99)}
	}
	if d, ok := merged["ttfb_uncorrected"]; ok {
		r.TTFBUncorrectedMs = &d
	}
	if d, ok := merged["total_uncorrected"]; ok {
		r.TotalUncorrectedMs = &d
	}
	if r.OpenLoop != nil {
		o := *r.OpenLoop
		o.OfferedOps, o.Late, o.Dropped, o.MaxInflight = 0, 0, 0, 0
		for _, w := range ws {
			if x := w.res.OpenLoop; x != nil {
				o.OfferedOps += x.OfferedOps
				o.Late += x.Late
				o.Dropped += x.Dropped
				o.MaxInflight += x.MaxInflight
				o.MaxStartLagMs = max(o.MaxStartLagMs, x.MaxStartLagMs)
				o.StartLagMs = worst(o.StartLagMs, x.StartLagMs)
			}
		}
		o.AchievedOpsPerS = perS(float64(r.Count+r.Errors), whole)
		r.OpenLoop = &o
	}
	return r
}

// sumWire adds the shards' lab wires (each shard runs its own lab): a
// shard whose machine was busy, or whose wire imprecise, makes the
// merged step so.
func sumWire(ws []window) *document.WireStats {
	var out *document.WireStats
	for _, w := range ws {
		x := w.res.Wire
		if x == nil {
			continue
		}
		if out == nil {
			out = &document.WireStats{LateAfterMs: x.LateAfterMs}
		}
		out.Up, out.Down = out.Up.Add(x.Up), out.Down.Add(x.Down)
		out.Busy, out.Imprecise = out.Busy || x.Busy, out.Imprecise || x.Imprecise
	}
	return out
}

func mbps(size int64, ms float64) float64 {
	if size <= 0 || ms <= 0 {
		return 0
	}
	return float64(size) / 1e6 / (ms / 1000)
}

func worst(a, b stats.Dist) stats.Dist {
	return stats.Dist{Count: a.Count + b.Count, Min: math.Min(nz(a.Min, b.Min), nz(b.Min, a.Min)), P50: max(a.P50, b.P50), P90: max(a.P90, b.P90),
		P99: max(a.P99, b.P99), P999: max(a.P999, b.P999), Max: max(a.Max, b.Max), Mean: max(a.Mean, b.Mean), Stddev: max(a.Stddev, b.Stddev)}
}

func nz(a, b float64) float64 {
	if a == 0 {
		return b
	}
	return a
}

func worstPhases(acc, x map[string]stats.Dist) map[string]stats.Dist {
	out := maps.Clone(acc)
	if out == nil {
		out = map[string]stats.Dist{}
	}
	for k, d := range x {
		out[k] = worst(out[k], d)
	}
	return out
}

func worstGroup(a, b stats.Group) stats.Group {
	n := a.Count + b.Count
	g := stats.Group{Count: n, TTFBms: worst(a.TTFBms, b.TTFBms), TotalMs: worst(a.TotalMs, b.TotalMs), PhasesMs: worstPhases(a.PhasesMs, b.PhasesMs)}
	if n > 0 {
		g.ReusedFraction = (a.ReusedFraction*float64(a.Count) + b.ReusedFraction*float64(b.Count)) / float64(n)
	}
	return g
}

// mergeRecorders adds the shards' whole recorders (nil when any shard's
// document has none, as those of an older objbench).
func mergeRecorders(ws []window) (*stats.Recorder, error) {
	var encs [][]byte
	for _, w := range ws {
		enc, ok := w.data.Histograms[stats.RecorderMetric]
		if !ok {
			return nil, nil
		}
		encs = append(encs, []byte(enc))
	}
	return stats.MergeEncoded(encs)
}

// exactGroups replaces what sumResults could only bound (the phases, the
// first and later requests) with the merged recorders' summary: exact.
// TTFB and total stay those of the added fine histograms.
func exactGroups(r *document.Result, s stats.Summary) {
	r.PhasesMs, r.FirstRequest, r.LaterRequests = s.PhasesMs, s.FirstRequest, s.LaterRequests
	r.ReusedFraction, r.ExpectSent, r.ExpectWaited = s.ReusedFraction, s.ExpectSent, s.ExpectWaited
	r.Retries, r.Reconnects, r.SilentRetries = s.Retries, s.Reconnects, s.SilentRetries
	if s.Count > 0 {
		r.RequestsPerOp = float64(s.Requests) / float64(s.Count)
	}
}
