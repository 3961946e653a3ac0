package stats

import (
	"fmt"
	"math/rand/v2"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histograms returns the step's merged TTFB and total histograms (all
// successful requests, microseconds), encoded for storage.
func (r *Recorder) Histograms() (map[string][]byte, error) {
	all := newGroup(fineDigits)
	all.merge(r.later)
	r.first.into(all)
	out := map[string][]byte{}
	for name, h := range map[string]*hdr.Histogram{"ttfb": all.ttfb, "total": all.total} {
		b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, fmt.Errorf("encode %s histogram: %w", name, err)
		}
		out[name] = b
	}
	return out, nil
}

// Histogram is a stored latency distribution in microseconds.
type Histogram struct{ h *hdr.Histogram }

// DecodeHistogram reads what Histograms encoded.
func DecodeHistogram(b []byte) (*Histogram, error) {
	h, err := hdr.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return &Histogram{h: h}, nil
}

// Count is the number of values recorded.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Sample draws n values in milliseconds from the distribution, for
// bootstrapping when raw samples were not kept.
func (h *Histogram) Sample(rng *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	total := h.h.TotalCount()
	if total == 0 {
		return out[:0]
	}
	for i := range out {
		q := rng.Float64() * 100
		out[i] = float64(h.h.ValueAtQuantile(q)) / 1000
	}
	return out
}

// Values expands the histogram into its values in milliseconds (each bucket
// value repeated by its count), up to max values by even thinning.
func (h *Histogram) Values(maxN int) []float64 {
	total := h.h.TotalCount()
	if total == 0 {
		return nil
	}
	step := max(total/int64(maxN), 1)
	var out []float64
	var seen int64
	for _, b := range h.h.Distribution() {
		for range b.Count {
			if seen%step == 0 {
				out = append(out, float64(b.From+(b.To-b.From)/2)/1000)
			}
			seen++
		}
	}
	return out
}

// Quantiles returns the values in milliseconds at each level (0 to 1), for
// quantile plots of a stored step.
func (h *Histogram) Quantiles(levels []float64) []float64 {
	out := make([]float64, len(levels))
	if h.h.TotalCount() == 0 {
		return out[:0]
	}
	for i, q := range levels {
		out[i] = float64(h.h.ValueAtQuantile(q*100)) / 1000
	}
	return out
}
