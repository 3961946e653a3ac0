package merge

import "github.com/objbench/objbench/internal/document"

// sumRateSteps adds the shards' rate steps row by row: the shards run one
// schedule from one start (each at its share of the rate), so row k of
// each is the same part of it. Counts, offered rates and goodputs add; the
// throttled share is recomputed from the sums; a row's latency, kept only
// as quantiles, is the worst shard's (an upper bound, as the start lag's).
// The knee is left to be found again on the sums (analysis.Annotate).
func sumRateSteps(ws []window) []document.RateStep {
	var out []document.RateStep
	for _, w := range ws {
		for k, s := range w.res.RateSteps {
			if k == len(out) {
				out = append(out, document.RateStep{StartS: s.StartS, EndS: s.EndS})
			}
			o := &out[k]
			o.EndS = max(o.EndS, s.EndS)
			o.OfferedOpsPerS += s.OfferedOpsPerS
			o.Count += s.Count
			o.Errors += s.Errors
			o.GoodputOpsPerS += s.GoodputOpsPerS
			o.GoodputMBPerS += s.GoodputMBPerS
			o.Requests += s.Requests
			o.Throttled += s.Throttled
			o.Retries += s.Retries
			o.TotalMs = worst(o.TotalMs, s.TotalMs)
			for p, n := range s.ThrottledByPrefix {
				if o.ThrottledByPrefix == nil {
					o.ThrottledByPrefix = map[string]int64{}
				}
				o.ThrottledByPrefix[p] += n
			}
		}
	}
	for k := range out {
		if out[k].Requests > 0 {
			out[k].ThrottledShare = float64(out[k].Throttled) / float64(out[k].Requests)
		}
	}
	return out
}
