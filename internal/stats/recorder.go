package stats

import (
	"math"
	"time"
	"unsafe"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/nettrace"
)

// Histogram ranges: microseconds from 0 to one hour (longer values are
// clamped). TTFB and total keep 3 significant figures; phases 2, which bounds
// a Recorder's memory.
const (
	maxMicros  = int64(time.Hour / time.Microsecond)
	fineDigits = 3
	phaseDigit = 2
	// exactCap is how many first requests a Recorder keeps exactly. There is
	// one first request per worker, so past this many workers the first
	// group spills into histograms of phaseDigit figures.
	exactCap = 1024
)

// point is one successful request's durations in microseconds.
type point struct {
	ttfb, total int64
	phases      [nettrace.NumPhases]int64
}

// pointOf converts s's durations to microseconds clamped to [0, maxMicros].
func pointOf(s *nettrace.Sample) point {
	p := point{ttfb: micros(s.TTFB()), total: micros(s.Total())}
	for i, d := range s.Phases {
		p.phases[i] = micros(d)
	}
	return p
}

func micros(d time.Duration) int64 { return min(max(d.Microseconds(), 0), maxMicros) }

// group is the histograms of one subset of samples.
type group struct {
	ttfb, total *hdr.Histogram
	phases      [nettrace.NumPhases]*hdr.Histogram
	count       int64
	reused      int64
}

// newGroup makes a group whose TTFB and total keep digits significant
// figures and whose phases keep phaseDigit.
func newGroup(digits int) *group {
	g := &group{ttfb: hdr.New(1, maxMicros, digits), total: hdr.New(1, maxMicros, digits)}
	for i := range g.phases {
		g.phases[i] = hdr.New(1, maxMicros, phaseDigit)
	}
	return g
}

// record adds p to the histograms without counting it.
func (g *group) record(p point) {
	_ = g.ttfb.RecordValue(p.ttfb) // in range by construction
	_ = g.total.RecordValue(p.total)
	for i, us := range p.phases {
		_ = g.phases[i].RecordValue(us)
	}
}

func (g *group) add(p point, reused bool) {
	g.record(p)
	g.count++
	if reused {
		g.reused++
	}
}

// mergeHists adds o's histograms into g's, leaving the counts alone.
func (g *group) mergeHists(o *group) {
	g.ttfb.Merge(o.ttfb)
	g.total.Merge(o.total)
	for i := range g.phases {
		g.phases[i].Merge(o.phases[i])
	}
}

func (g *group) merge(o *group) {
	g.mergeHists(o)
	g.count += o.count
	g.reused += o.reused
}

func (g *group) byteSize() int {
	n := g.ttfb.ByteSize() + g.total.ByteSize()
	for _, h := range g.phases {
		n += h.ByteSize()
	}
	return n
}

func (g *group) summary() Group {
	return Group{Count: g.count, TTFBms: dist(g.ttfb), TotalMs: dist(g.total),
		PhasesMs: phaseMap(func(p nettrace.Phase) Dist { return dist(g.phases[p]) }), ReusedFraction: frac(g.reused, g.count)}
}

// firstGroup holds the first request of each worker. There are few (one per
// worker), so it keeps them exactly instead of paying for histograms of
// 3 significant figures; past exactCap they spill into histograms.
type firstGroup struct {
	points []point // exact values; nil once spilled
	spill  *group  // every point once more than exactCap arrived; nil before
	count  int64
	reused int64
}

func (f *firstGroup) add(p point, reused bool) {
	f.count++
	if reused {
		f.reused++
	}
	if f.spill == nil && len(f.points) == exactCap {
		f.spillOver()
	}
	if f.spill != nil {
		f.spill.record(p)
		return
	}
	f.points = grow(f.points, 1)
	f.points = append(f.points, p)
}

// spillOver moves the exact points into histograms.
func (f *firstGroup) spillOver() {
	if f.spill == nil {
		f.spill = newGroup(phaseDigit)
	}
	for _, p := range f.points {
		f.spill.record(p)
	}
	f.points = nil
}

func (f *firstGroup) merge(o *firstGroup) {
	f.count += o.count
	f.reused += o.reused
	if f.spill == nil && o.spill == nil && len(f.points)+len(o.points) <= exactCap {
		f.points = grow(f.points, len(o.points))
		f.points = append(f.points, o.points...)
		return
	}
	f.spillOver()
	if o.spill != nil {
		f.spill.mergeHists(o.spill)
	}
	for _, p := range o.points {
		f.spill.record(p)
	}
}

// into records every point of f into g and adds f's counts.
func (f *firstGroup) into(g *group) {
	if f.spill != nil {
		g.mergeHists(f.spill)
	}
	for _, p := range f.points {
		g.record(p)
	}
	g.count += f.count
	g.reused += f.reused
}

func (f *firstGroup) byteSize() int {
	n := cap(f.points) * int(unsafe.Sizeof(point{}))
	if f.spill != nil {
		n += f.spill.byteSize()
	}
	return n
}

func (f *firstGroup) summary() Group {
	if f.spill != nil {
		g := f.spill.summary()
		g.Count, g.ReusedFraction = f.count, frac(f.reused, f.count)
		return g
	}
	vals := make([]float64, len(f.points))
	exact := func(get func(point) int64) Dist {
		for i, p := range f.points {
			vals[i] = float64(get(p)) / 1000
		}
		return Percentiles(vals)
	}
	return Group{
		Count:          f.count,
		TTFBms:         exact(func(p point) int64 { return p.ttfb }),
		TotalMs:        exact(func(p point) int64 { return p.total }),
		PhasesMs:       phaseMap(func(ph nettrace.Phase) Dist { return exact(func(p point) int64 { return p.phases[ph] }) }),
		ReusedFraction: frac(f.reused, f.count),
	}
}

// grow returns ps with room for n more points, never more than exactCap.
func grow(ps []point, n int) []point {
	need := len(ps) + n
	if need <= cap(ps) {
		return ps
	}
	out := make([]point, len(ps), min(max(need, 2*cap(ps), 4), exactCap))
	copy(out, ps)
	return out
}

// Recorder accumulates one worker's samples of one step. It is not safe for
// concurrent use: each worker has its own, merged after the step, so the hot
// path takes no lock. Its memory is bounded (ByteSize), whatever the number
// of samples.
type Recorder struct {
	first         firstGroup
	later         *group
	errors        int64
	errorsByClass map[string]int64
	retries       int64
	requests      int64
	bytes         int64
	reconnects    int64
	// Successful samples that sent Expect: 100-continue, and that waited.
	expectSent, expectWaited int64
	silentRetries            int64
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{later: newGroup(fineDigits), errorsByClass: map[string]int64{}}
}

// Add records s. Failed samples are counted by error class ("other" when
// unclassified) and never enter the latency histograms; retries are counted
// for every sample. A worker's first request (Seq 0) goes to the "first"
// group, the others to "later".
func (r *Recorder) Add(s *nettrace.Sample) {
	r.retries += int64(s.Retries)
	r.silentRetries += int64(s.SilentRetries)
	if !s.OK() {
		r.errors++
		class := s.ErrClass
		if class == "" {
			class = "other"
		}
		r.errorsByClass[class]++
		return
	}
	r.requests += int64(s.Requests)
	r.bytes += max(s.Size, s.Bytes)
	r.reconnects += int64(s.Reconnects)
	if s.ExpectSent {
		r.expectSent++
	}
	if s.ExpectWaited {
		r.expectWaited++
	}
	if s.Seq > 0 && !s.Reused {
		r.reconnects++ // a later request that had to open a connection
	}
	if s.Seq == 0 {
		r.first.add(pointOf(s), s.Reused)
	} else {
		r.later.add(pointOf(s), s.Reused)
	}
}

// Merge adds o's samples into r; o is left unchanged.
func (r *Recorder) Merge(o *Recorder) {
	r.first.merge(&o.first)
	r.later.merge(o.later)
	r.errors += o.errors
	for k, v := range o.errorsByClass {
		r.errorsByClass[k] += v
	}
	r.retries += o.retries
	r.requests += o.requests
	r.bytes += o.bytes
	r.reconnects += o.reconnects
	r.expectSent += o.expectSent
	r.expectWaited += o.expectWaited
	r.silentRetries += o.silentRetries
}

// ByteSize estimates the Recorder's memory in bytes: its histograms' counts
// and the first requests it keeps exactly. It does not grow with the number
// of samples and stays under 1 MiB.
func (r *Recorder) ByteSize() int {
	return r.later.byteSize() + r.first.byteSize()
}

// Summarize returns the step's summary; size is the object size the step
// moved per request (for MB/s) and wall its wall time.
func (r *Recorder) Summarize(size int64, wall time.Duration) Summary {
	all := newGroup(fineDigits)
	all.merge(r.later)
	r.first.into(all)
	s := Summary{
		Count:          all.count,
		Errors:         r.errors,
		ErrorsByClass:  make(map[string]int64, len(r.errorsByClass)),
		Retries:        r.retries,
		Requests:       r.requests,
		Bytes:          r.bytes,
		Reconnects:     r.reconnects,
		SilentRetries:  r.silentRetries,
		TTFBms:         dist(all.ttfb),
		TotalMs:        dist(all.total),
		PhasesMs:       phaseMap(func(p nettrace.Phase) Dist { return dist(all.phases[p]) }),
		ReusedFraction: frac(all.reused, all.count),
		ExpectSent:     frac(r.expectSent, all.count),
		ExpectWaited:   frac(r.expectWaited, all.count),
		FirstRequest:   r.first.summary(),
		LaterRequests:  r.later.summary(),
	}
	for k, v := range r.errorsByClass {
		s.ErrorsByClass[k] = v
	}
	s.MBps = Throughput{P50: mbps(size, s.TotalMs.P50), P90: mbps(size, s.TotalMs.P90), P99: mbps(size, s.TotalMs.P99)}
	if secs := wall.Seconds(); secs > 0 {
		s.AggregateMBps = float64(r.bytes) / 1e6 / secs
	}
	return s
}

// mbps is size bytes in ms milliseconds, in MB/s.
func mbps(size int64, ms float64) float64 {
	if size <= 0 || ms <= 0 {
		return 0
	}
	return float64(size) / 1e6 / (ms / 1000)
}

func frac(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// dist summarises a microsecond histogram in milliseconds.
func dist(h *hdr.Histogram) Dist {
	if h.TotalCount() == 0 {
		return Dist{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Dist{
		Count:  h.TotalCount(),
		Min:    ms(h.Min()),
		P50:    ms(h.ValueAtQuantile(50)),
		P90:    ms(h.ValueAtQuantile(90)),
		P99:    ms(h.ValueAtQuantile(99)),
		P999:   ms(h.ValueAtQuantile(99.9)),
		Max:    ms(h.Max()),
		Mean:   finite(h.Mean() / 1000),
		Stddev: finite(h.StdDev() / 1000),
	}
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
