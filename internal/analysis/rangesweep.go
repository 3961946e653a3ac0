package analysis

import (
	"fmt"
	"strconv"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/units"
)

// rangeSweepRule reads the ranges workload (a size sweep of ranged
// downloads): per object size, the part size and parallelism that read
// one object fastest, what they gain over one stream, and the flags that
// ask for them. Id range-sweep-SIZE; info, as it is advice to configure.
func rangeSweepRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	type sweep struct {
		stream *document.Result
		best   *document.Result
		tried  int
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
		sw.tried++
		if sw.best == nil || r.AggregateMBps > sw.best.AggregateMBps {
			sw.best = r
		}
	}
	var out []document.Finding
	for _, size := range order {
		sw := bySize[size]
		if sw.stream == nil || sw.best == nil {
			continue
		}
		b, s := sw.best, sw.stream
		gain := b.AggregateMBps / s.AggregateMBps
		part, par := units.FormatSize(b.Parts.SizeBytes), strconv.Itoa(b.Parts.Parallel)
		var text string
		if gain >= 1.1 {
			text = fmt.Sprintf("%s objects download fastest in %s ranges, up to %s at a time: %.0f MB/s against %.0f MB/s in one stream (%.1f×; p50 %s ms against %s ms; best of %d configurations): use --download ranged --part-size %s --part-concurrency %s (or a transfer manager set the same way).",
				units.FormatSize(size), part, par, b.AggregateMBps, s.AggregateMBps, gain, fmtMs(b.TotalMs.P50), fmtMs(s.TotalMs.P50), sw.tried, part, par)
		} else {
			text = fmt.Sprintf("%s objects gain little from ranged downloads: the best of %d configurations (%s ranges, up to %s at a time) reads %.0f MB/s against %.0f MB/s in one stream (%.2f×): keep one stream, the ranges only add requests.",
				units.FormatSize(size), sw.tried, part, par, b.AggregateMBps, s.AggregateMBps, gain)
		}
		out = append(out, finding("range-sweep-"+units.FormatSize(size), Info, text, map[string]float64{
			"size_bytes": float64(size), "part_size_bytes": float64(b.Parts.SizeBytes), "part_concurrency": float64(b.Parts.Parallel),
			"mb_per_s": b.AggregateMBps, "stream_mb_per_s": s.AggregateMBps, "speedup": gain, "configurations": float64(sw.tried),
		}))
	}
	return out
}
