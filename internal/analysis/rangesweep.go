package analysis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/units"
)

// rangeSweepRule reads the ranges workload (a size sweep of ranged
// downloads): per object size, the part size and parallelism that read
// one object fastest, what they gain over one stream, and the flags that
// ask for them. Configurations the measurement cannot tell from the
// fastest (sweepTied) are as good an answer, and the one among them with
// the fewest parts in flight (then the largest parts: fewer requests) is
// the one named: more connections for no measured gain only cost the
// store and the client. Id range-sweep-SIZE; info, as it is advice to
// configure.
func rangeSweepRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	type sweep struct {
		stream *document.Result
		ranged []*document.Result
	}
	var order []int64
	bySize := map[int64]*sweep{}
	for i := range doc.Results {
		r := &doc.Results[i]
		if r.Workload != load.Ranges || r.Op != "get" || r.Count == 0 || r.Errors > 0 || r.AggregateMBps <= 0 {
			continue
		}
		sw := bySize[r.SizeBytes]
		if sw == nil {
			sw = &sweep{}
			bySize[r.SizeBytes] = sw
			order = append(order, r.SizeBytes)
		}
		if r.Parts == nil {
			sw.stream = r
			continue
		}
		sw.ranged = append(sw.ranged, r)
	}
	var out []document.Finding
	for _, size := range order {
		sw := bySize[size]
		if sw.stream == nil || len(sw.ranged) == 0 {
			continue
		}
		best := sw.ranged[0]
		for _, r := range sw.ranged[1:] {
			if r.AggregateMBps > best.AggregateMBps {
				best = r
			}
		}
		s := sw.stream
		few := best.TotalMs.Count < minSweepReads || s.TotalMs.Count < minSweepReads
		// beats is whether r reads measurably faster than the one stream.
		beats := func(r *document.Result) bool {
			if r.AggregateMBps < 1.1*s.AggregateMBps {
				return false
			}
			return few || r.TotalMs.Count < minSweepReads || welchT(s.TotalMs, r.TotalMs) >= 2
		}
		b, tied := best, 0
		if beats(best) {
			for _, r := range sw.ranged {
				if !sweepTied(r, best) || !beats(r) {
					continue
				}
				tied++
				if r.Parts.Parallel < b.Parts.Parallel || (r.Parts.Parallel == b.Parts.Parallel && r.Parts.SizeBytes > b.Parts.SizeBytes) {
					b = r
				}
			}
		}
		gain := b.AggregateMBps / s.AggregateMBps
		part, par := units.FormatSize(b.Parts.SizeBytes), strconv.Itoa(b.Parts.Parallel)
		var text string
		if tied > 0 {
			text = fmt.Sprintf("%s objects download fastest in %s ranges, up to %s at a time: %.0f MB/s against %.0f MB/s in one stream (%.1f×; p50 %s ms against %s ms; best of %d configurations",
				units.FormatSize(size), part, par, b.AggregateMBps, s.AggregateMBps, gain, fmtMs(b.TotalMs.P50), fmtMs(s.TotalMs.P50), len(sw.ranged))
			if tied > 1 {
				text += fmt.Sprintf(", of the %d as fast within the noise the one with the fewest parts in flight", tied)
			}
			text += fmt.Sprintf("): use --download ranged --part-size %s --part-concurrency %s (or a transfer manager set the same way).", part, par)
		} else if gain >= 1.1 {
			text = fmt.Sprintf("%s objects: the best of %d configurations (%s ranges, up to %s at a time) reads %.0f MB/s against %.0f MB/s in one stream (%.2f×), but the reads vary too much to tell it from one stream: rerun with a larger --size-count before choosing.",
				units.FormatSize(size), len(sw.ranged), part, par, b.AggregateMBps, s.AggregateMBps, gain)
		} else {
			text = fmt.Sprintf("%s objects gain little from ranged downloads: the best of %d configurations (%s ranges, up to %s at a time) reads %.0f MB/s against %.0f MB/s in one stream (%.2f×): keep one stream, the ranges only add requests.",
				units.FormatSize(size), len(sw.ranged), part, par, b.AggregateMBps, s.AggregateMBps, gain)
		}
		if few {
			text += fmt.Sprintf(" Fewer than %d reads per configuration: configurations within 10%% of the fastest count as tied; --size-count %d tests the differences.", minSweepReads, 2*minSweepReads-1)
		}
		out = append(out, finding("range-sweep-"+units.FormatSize(size), Info, text, map[string]float64{
			"size_bytes": float64(size), "part_size_bytes": float64(b.Parts.SizeBytes), "part_concurrency": float64(b.Parts.Parallel),
			"mb_per_s": b.AggregateMBps, "stream_mb_per_s": s.AggregateMBps, "speedup": gain, "configurations": float64(len(sw.ranged)),
			"tied": float64(tied), "fastest_mb_per_s": best.AggregateMBps,
		}))
	}
	return out
}

// minSweepReads is the reads of one configuration below which its spread
// says too little for a test: ties are then judged by a 10% margin.
const minSweepReads = 3

// sweepTied is whether r cannot be told from the fastest configuration:
// Welch's t on their objects' total times under 2 (about 95%), or, with
// fewer than minSweepReads reads of either, throughput within 10%.
func sweepTied(r, fastest *document.Result) bool {
	if r == fastest {
		return true
	}
	if r.TotalMs.Count < minSweepReads || fastest.TotalMs.Count < minSweepReads {
		return r.AggregateMBps >= 0.9*fastest.AggregateMBps
	}
	return welchT(r.TotalMs, fastest.TotalMs) < 2
}

// welchT is Welch's t of a's mean over b's (positive when a takes
// longer); a difference with no spread at all is taken as certain.
func welchT(a, b document.Dist) float64 {
	if a.Count == 0 || b.Count == 0 {
		return 0
	}
	se := math.Sqrt(a.Stddev*a.Stddev/float64(a.Count) + b.Stddev*b.Stddev/float64(b.Count))
	d := a.Mean - b.Mean
	if se == 0 {
		switch {
		case d > 0:
			return math.Inf(1)
		case d < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return d / se
}
