package stats

import (
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/nettrace"
)

// IntervalRecorder is one worker's tallies of one op for the current
// interval. The worker adds under its own lock (never contended but by the
// interval tick), and the tick drains it into an Interval: the series'
// memory is the encoded intervals, not the samples.
type IntervalRecorder struct {
	mu            sync.Mutex
	ttfb, total   *hdr.Histogram
	count, errors int64
	errorsByClass map[string]int64
	bytes         int64
	late, dropped int64
}

// NewIntervalRecorder returns an empty IntervalRecorder.
func NewIntervalRecorder() *IntervalRecorder {
	return &IntervalRecorder{ttfb: hdr.New(1, maxMicros, fineDigits), total: hdr.New(1, maxMicros, fineDigits),
		errorsByClass: map[string]int64{}}
}

// Add records s (already shifted to the latency origin the step reports)
// exactly as Recorder.Add does, so that the intervals add up to the step.
func (r *IntervalRecorder) Add(s *nettrace.Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !s.OK() {
		r.errors++
		class := s.ErrClass
		if class == "" {
			class = "other"
		}
		r.errorsByClass[class]++
		return
	}
	p := pointOf(s)
	_ = r.ttfb.RecordValue(p.ttfb)
	_ = r.total.RecordValue(p.total)
	r.count++
	r.bytes += max(s.Size, s.Bytes)
}

// Late counts an operation that started after its intended time; Dropped
// one that was dropped for being later than the limit.
func (r *IntervalRecorder) Late() { r.mu.Lock(); r.late++; r.mu.Unlock() }

// Dropped counts a dropped operation.
func (r *IntervalRecorder) Dropped() { r.mu.Lock(); r.dropped++; r.mu.Unlock() }

// drainInto adds r into acc and resets r.
func (r *IntervalRecorder) drainInto(acc *IntervalRecorder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	acc.ttfb.Merge(r.ttfb)
	acc.total.Merge(r.total)
	acc.count += r.count
	acc.errors += r.errors
	for k, v := range r.errorsByClass {
		acc.errorsByClass[k] += v
	}
	acc.bytes += r.bytes
	acc.late += r.late
	acc.dropped += r.dropped
	r.ttfb.Reset()
	r.total.Reset()
	r.count, r.errors, r.bytes, r.late, r.dropped = 0, 0, 0, 0, 0
	clear(r.errorsByClass)
}

// Interval is one op's results over one interval of a step: what the
// over-time plots, the series export and the live status line show.
type Interval struct {
	Op            string           `json:"op"`
	StartS        float64          `json:"start_s"` // since the step's start
	EndS          float64          `json:"end_s"`
	Count         int64            `json:"count"`
	Errors        int64            `json:"errors"`
	ErrorsByClass map[string]int64 `json:"errors_by_class,omitempty"`
	Bytes         int64            `json:"bytes"`
	Late          int64            `json:"late"`
	Dropped       int64            `json:"dropped"`
	// InFlight is the most operations in flight at once in the interval
	// (all ops of the step); NewConns the connections opened in it.
	InFlight int64 `json:"in_flight"`
	NewConns int64 `json:"new_conns"`
	// TTFB and Total are HDR histograms in microseconds, in HdrHistogram's
	// compressed base64 text (as its interval logs hold them).
	TTFB  string `json:"ttfb"`
	Total string `json:"total"`
}

// AddCounts adds o's counts to iv's, as o following iv in time makes
// them: counts added, the most in flight of the two, errors by class
// added into a new map (iv's may be another holder's).
func (iv *Interval) AddCounts(o Interval) {
	iv.Count += o.Count
	iv.Errors += o.Errors
	iv.Bytes += o.Bytes
	iv.Late += o.Late
	iv.Dropped += o.Dropped
	iv.InFlight = max(iv.InFlight, o.InFlight)
	iv.NewConns += o.NewConns
	if len(o.ErrorsByClass) > 0 {
		byClass := make(map[string]int64, len(iv.ErrorsByClass)+len(o.ErrorsByClass))
		for k, v := range iv.ErrorsByClass {
			byClass[k] += v
		}
		for k, v := range o.ErrorsByClass {
			byClass[k] += v
		}
		iv.ErrorsByClass = byClass
	}
}

// OpsPerS is the interval's completed operations (failed included) per second.
func (iv *Interval) OpsPerS() float64 { return perS(float64(iv.Count+iv.Errors), iv.EndS-iv.StartS) }

// BytesPerS is the interval's bytes per second.
func (iv *Interval) BytesPerS() float64 { return perS(float64(iv.Bytes), iv.EndS-iv.StartS) }

func perS(n, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return n / s
}

// TotalDist summarises the interval's total latency in milliseconds.
func (iv *Interval) TotalDist() Dist { return decodedDist(iv.Total) }

// TTFBDist summarises the interval's time to first byte in milliseconds.
func (iv *Interval) TTFBDist() Dist { return decodedDist(iv.TTFB) }

func decodedDist(b string) Dist {
	h, err := hdr.Decode([]byte(b))
	if err != nil {
		return Dist{}
	}
	return dist(h)
}

// Drain empties the workers' recorders of one op into an Interval.
func Drain(op string, from, to time.Duration, workers []*IntervalRecorder) Interval {
	return NewSeries(0, 1).Drain(op, from, to, workers)
}

// Drain empties the workers' recorders of one op into an Interval (not
// added to s: see Add). The sum and its encoder are s's, reused from one
// tick to the next: a new pair of histograms and hdr's own encoding (a
// zlib writer each) cost 2 MB and 1.9 ms a tick.
func (s *Series) Drain(op string, from, to time.Duration, workers []*IntervalRecorder) Interval {
	if s.acc == nil {
		s.acc = NewIntervalRecorder()
	}
	acc := s.acc
	for _, w := range workers {
		if w != nil {
			w.drainInto(acc)
		}
	}
	iv := Interval{Op: op, StartS: from.Seconds(), EndS: to.Seconds(), Count: acc.count, Errors: acc.errors,
		Bytes: acc.bytes, Late: acc.late, Dropped: acc.dropped}
	if len(acc.errorsByClass) > 0 {
		iv.ErrorsByClass = maps.Clone(acc.errorsByClass)
	}
	iv.TTFB, iv.Total = s.encode(acc.ttfb), s.encode(acc.total)
	acc.ttfb.Reset()
	acc.total.Reset()
	acc.count, acc.errors, acc.bytes, acc.late, acc.dropped = 0, 0, 0, 0, 0
	clear(acc.errorsByClass)
	return iv
}

// encode is h in HdrHistogram's compressed base64 text, written by s's sum.
func (s *Series) encode(h *hdr.Histogram) string {
	if s.sum == nil {
		s.sum = NewSum()
	}
	if enc, err := s.sum.encodeHistogram(h); err == nil {
		return enc
	}
	b, _ := h.Encode(hdr.V2CompressedEncodingCookieBase) // in-memory: cannot fail
	return string(b)
}

// SeriesMetric is the step_histograms metric under which a step's
// intervals are stored (older databases have none).
const SeriesMetric = "series"

// EncodeSeries encodes a step's intervals for the results database.
func EncodeSeries(s []Interval) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode series: %w", err)
	}
	return b, nil
}

// DecodeSeries reads what EncodeSeries wrote.
func DecodeSeries(b []byte) ([]Interval, error) {
	var s []Interval
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode series: %w", err)
	}
	return s, nil
}

// SumSeries adds the intervals' histograms of one metric ("ttfb" or
// "total") into one, for checking that they add up to the step's.
func SumSeries(s []Interval, metric string) (*Histogram, error) {
	sum := hdr.New(1, maxMicros, fineDigits)
	for _, iv := range s {
		b := iv.Total
		if metric == "ttfb" {
			b = iv.TTFB
		}
		h, err := hdr.Decode([]byte(b))
		if err != nil {
			return nil, fmt.Errorf("decode interval: %w", err)
		}
		sum.Merge(h)
	}
	return &Histogram{h: sum}, nil
}

// Equal reports whether two histograms hold the same counts in the same buckets.
func (h *Histogram) Equal(o *Histogram) bool { return h.h.Equals(o.h) }

// Quantile is the value in milliseconds at q (0 to 100).
func (h *Histogram) Quantile(q float64) float64 { return float64(h.h.ValueAtQuantile(q)) / 1000 }

// LagRecorder is a histogram of how late operations started after their
// intended time (an open-loop pacer's own timing error), in microseconds.
// Not safe for concurrent use: one per shard, merged after the step.
type LagRecorder struct{ h *hdr.Histogram }

// NewLagRecorder returns an empty LagRecorder.
func NewLagRecorder() *LagRecorder { return &LagRecorder{h: hdr.New(1, maxMicros, 2)} }

// Add records one operation's lag (negative: early, counted as zero).
func (l *LagRecorder) Add(d time.Duration) { _ = l.h.RecordValue(micros(d)) }

// Merge adds o into l.
func (l *LagRecorder) Merge(o *LagRecorder) { l.h.Merge(o.h) }

// Dist summarises the lags in milliseconds.
func (l *LagRecorder) Dist() Dist { return dist(l.h) }

// Durations is a small histogram of durations (two significant figures, a
// few kilobytes), the same as LagRecorder: for tallies kept many times over,
// such as one per rate of an open loop's steps.
type Durations = LagRecorder

// NewDurations returns an empty Durations.
func NewDurations() *Durations { return NewLagRecorder() }
