package stats

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/nettrace"
)

// Histogram ranges: microseconds from 1 µs to one hour. TTFB and total keep
// 3 significant figures; phases 2, which bounds a Recorder's memory.
const (
	maxMicros  = int64(time.Hour / time.Microsecond)
	fineDigits = 3
	phaseDigit = 2
)

// group is the histograms of one subset of samples.
type group struct {
	ttfb, total *hdr.Histogram
	phases      [nettrace.NumPhases]*hdr.Histogram
	count       int64
	reused      int64
}

// newGroup makes a group whose TTFB and total keep digits significant figures.
func newGroup(digits int) *group {
	g := &group{ttfb: hdr.New(1, maxMicros, digits), total: hdr.New(1, maxMicros, digits)}
	for i := range g.phases {
		g.phases[i] = hdr.New(1, maxMicros, phaseDigit)
	}
	return g
}

func record(h *hdr.Histogram, d time.Duration) {
	us := min(max(d.Microseconds(), 0), maxMicros)
	_ = h.RecordValue(us) // in range by construction
}

func (g *group) add(s *nettrace.Sample) {
	record(g.ttfb, s.TTFB())
	record(g.total, s.Total())
	for i, d := range s.Phases {
		record(g.phases[i], d)
	}
	g.count++
	if s.Reused {
		g.reused++
	}
}

func (g *group) merge(o *group) {
	g.ttfb.Merge(o.ttfb)
	g.total.Merge(o.total)
	for i := range g.phases {
		g.phases[i].Merge(o.phases[i])
	}
	g.count += o.count
	g.reused += o.reused
}

func (g *group) summary() Group {
	out := Group{Count: g.count, TTFB: dist(g.ttfb), Total: dist(g.total), ReusedFraction: frac(g.reused, g.count)}
	for i, h := range g.phases {
		out.Phases[i] = dist(h)
	}
	return out
}

// Recorder accumulates one worker's samples of one step. It is not safe for
// concurrent use: each worker has its own, merged after the step, so the hot
// path takes no lock. Its memory is fixed, whatever the number of samples.
type Recorder struct {
	first, later  *group
	errors        int64
	errorsByClass map[string]int64
	retries       int64
	requests      int64
	bytes         int64
	reconnects    int64
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	// The first group holds one request per worker: 2 figures (1%) suffice
	// and keep a Recorder under 1 MiB.
	return &Recorder{first: newGroup(phaseDigit), later: newGroup(fineDigits), errorsByClass: map[string]int64{}}
}

// Add records s. Failed samples are counted by error class and never enter
// the latency histograms. A worker's first request (Seq 0) goes to the
// "first" group, the others to "later".
func (r *Recorder) Add(s *nettrace.Sample) {
	r.retries += int64(s.Retries)
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
	if s.Seq > 0 && !s.Reused {
		r.reconnects++ // a later request that had to open a connection
	}
	if s.Seq == 0 {
		r.first.add(s)
	} else {
		r.later.add(s)
	}
}

// Merge adds o's samples into r.
func (r *Recorder) Merge(o *Recorder) {
	r.first.merge(o.first)
	r.later.merge(o.later)
	r.errors += o.errors
	for k, v := range o.errorsByClass {
		r.errorsByClass[k] += v
	}
	r.retries += o.retries
	r.requests += o.requests
	r.bytes += o.bytes
	r.reconnects += o.reconnects
}

// ByteSize estimates the Recorder's memory.
func (r *Recorder) ByteSize() int {
	n := 0
	for _, g := range []*group{r.first, r.later} {
		n += g.ttfb.ByteSize() + g.total.ByteSize()
		for _, h := range g.phases {
			n += h.ByteSize()
		}
	}
	return n
}

// Summarize returns the step's summary; size is the object size the step
// moved per request (for MB/s) and wall its wall time.
func (r *Recorder) Summarize(size int64, wall time.Duration) Summary {
	all := newGroup(fineDigits)
	all.merge(r.first)
	all.merge(r.later)
	s := Summary{
		Count:          all.count,
		Errors:         r.errors,
		ErrorsByClass:  map[string]int64{},
		Retries:        r.retries,
		Requests:       r.requests,
		Bytes:          r.bytes,
		Reconnects:     r.reconnects,
		TTFB:           dist(all.ttfb),
		Total:          dist(all.total),
		ReusedFraction: frac(all.reused, all.count),
		First:          r.first.summary(),
		Later:          r.later.summary(),
	}
	for k, v := range r.errorsByClass {
		s.ErrorsByClass[k] = v
	}
	for i, h := range all.phases {
		s.Phases[i] = dist(h)
	}
	s.MBps = Throughput{P50: mbps(size, s.Total.P50), P90: mbps(size, s.Total.P90), P99: mbps(size, s.Total.P99)}
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
