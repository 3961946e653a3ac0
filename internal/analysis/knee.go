package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
)

// The knee's margins (docs/load.md#the-knee). A step is pushed back when
// its goodput falls short of its offered rate by more than kneeShortfall
// while at least kneeThrottled of its answers were throttled, a share
// that rose by kneeThrottled or more from the step before (or, for the
// first step, to the next), and by more than chance (rose): a limit throttles a larger share the more is
// offered, where a store that throttles a fixed share at any rate (the
// lab's slowdown fault) has no knee. A step is carried when its goodput
// is within kneeShortfall of its offered rate and under kneeThrottled of
// its answers were throttled. A client that cannot keep its rate (late
// starts, its own CPU) falls short without throttled answers: not a knee.
const (
	kneeShortfall = 0.10
	kneeThrottled = 0.05
)

// RateSteps turns a step's rows into the document's: the op's share of
// the offered rate (share: 1 unless an op of a mix), goodput over each
// row's later half, and the throttled share.
func RateSteps(rows []load.RateStep, share float64) []document.RateStep {
	out := make([]document.RateStep, 0, len(rows))
	for _, r := range rows {
		d := document.RateStep{OfferedOpsPerS: document.Finite(r.Offered * share), StartS: r.From.Seconds(), EndS: r.To.Seconds(),
			Count: r.Count, Errors: r.Errors, Requests: r.Requests, Throttled: r.Throttled, Retries: r.Retries,
			TotalMs: r.Total, ThrottledByPrefix: r.ThrottledByPrefix}
		// The later half, unless the step ended before most of it (an
		// interrupted run): then the whole row.
		ok, bytes, secs := r.SettledCount, r.SettledBytes, (r.To - r.SettledFrom).Seconds()
		if whole := (r.To - r.From).Seconds(); secs < whole/4 {
			ok, bytes, secs = r.Count, r.Bytes, whole
		}
		if secs > 0 {
			d.GoodputOpsPerS = float64(ok) / secs
			d.GoodputMBPerS = float64(bytes) / 1e6 / secs
		}
		if r.Requests > 0 {
			d.ThrottledShare = float64(r.Throttled) / float64(r.Requests)
		}
		out = append(out, d)
	}
	return out
}

// pushedBack: row i's goodput fell short of its offered rate by a clear
// margin, with throttled answers, a share that rose from the row before
// (the first row: to the row after, offering more).
func pushedBack(rows []document.RateStep, i int) bool {
	r := rows[i]
	if r.OfferedOpsPerS <= 0 || r.GoodputOpsPerS >= (1-kneeShortfall)*r.OfferedOpsPerS || r.ThrottledShare < kneeThrottled ||
		clientLimited(r) {
		return false
	}
	if i > 0 {
		return rose(rows[i-1], r)
	}
	return rows[1].OfferedOpsPerS > r.OfferedOpsPerS && rose(r, rows[1])
}

// clientLimited: the row's shortfall is mostly not the store's: under
// half of it shows as throttled answers, and no SDK retried. Without
// retries a store's shortfall is its throttled share; a client that could
// not send its rate in time (its CPU, its workers) falls short on its
// own, and its operations due late in the step were never sent. With
// retries the SDK's backoff after throttled answers holds the workers:
// that shortfall is the store's pushing back.
func clientLimited(r document.RateStep) bool {
	if r.OfferedOpsPerS <= 0 || r.Retries > 0 {
		return false
	}
	short := 1 - r.GoodputOpsPerS/r.OfferedOpsPerS
	return short > kneeShortfall && r.ThrottledShare < short/2
}

// rose: b's throttled share is above a's by kneeThrottled and by more than
// rateZ standard errors of the difference of two shares (pooled), so that
// a few hundred answers' chance does not make a knee.
func rose(a, b document.RateStep) bool {
	d := b.ThrottledShare - a.ThrottledShare
	if d < kneeThrottled {
		return false
	}
	if a.Requests <= 0 || b.Requests <= 0 {
		return true // shares without their counts: the margin alone
	}
	p := float64(a.Throttled+b.Throttled) / float64(a.Requests+b.Requests)
	se := math.Sqrt(p * (1 - p) * (1/float64(a.Requests) + 1/float64(b.Requests)))
	return d > rateZ*se
}

// carried: the row got its offered rate, hardly throttled.
func carried(r document.RateStep) bool {
	return r.GoodputOpsPerS >= (1-kneeShortfall)*r.OfferedOpsPerS && r.ThrottledShare < kneeThrottled
}

// FindKnee finds where a store pushed back among an open loop's rows: the
// first row pushed back (pushedBack) after which no row offering as much
// or more was carried, so that one unlucky row between carried ones is not
// a knee. The goodput it settled at is the median of that row's and the
// later ones' offering as much or more, but for those the client itself
// held back (clientLimited); the rate where it pushed back is
// that goodput, bounded below by the highest rate carried before the knee
// and above by the knee's own offered rate. Nil with fewer than two rows.
func FindKnee(rows []document.RateStep) *document.Knee {
	if len(rows) < 2 {
		return nil
	}
	k := &document.Knee{Step: -1}
	for i, r := range rows {
		if pushedBack(rows, i) && !slices.ContainsFunc(rows[i+1:], func(o document.RateStep) bool {
			return o.OfferedOpsPerS >= r.OfferedOpsPerS && carried(o)
		}) {
			k.Step = i
			break
		}
	}
	past := rows
	if k.Step >= 0 {
		past = rows[:k.Step]
	}
	for _, r := range past {
		if carried(r) {
			k.CarriedOpsPerS = max(k.CarriedOpsPerS, r.OfferedOpsPerS)
		}
	}
	if k.Step < 0 {
		k.Step = 0
		k.HotPrefix, k.HotPrefixShare, k.ThrottledPrefixes = hotPrefix(rows)
		return k
	}
	at := rows[k.Step]
	var goodputs []float64
	for _, r := range rows[k.Step:] {
		if r.OfferedOpsPerS >= at.OfferedOpsPerS && !clientLimited(r) {
			goodputs = append(goodputs, r.GoodputOpsPerS)
		}
	}
	k.Found = true
	k.GoodputOpsPerS = median(goodputs)
	k.RateOpsPerS = min(max(k.GoodputOpsPerS, k.CarriedOpsPerS), at.OfferedOpsPerS)
	k.ThrottledShare = at.ThrottledShare
	k.HotPrefix, k.HotPrefixShare, k.ThrottledPrefixes = hotPrefix(rows[k.Step:])
	return k
}

// median of xs (not empty), xs sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// hotPrefix is the prefix with the most throttled answers over rows (the
// first by name among equals), its share of them, and how many prefixes
// had any.
func hotPrefix(rows []document.RateStep) (string, float64, int) {
	by := map[string]int64{}
	var all int64
	for _, r := range rows {
		for p, n := range r.ThrottledByPrefix {
			by[p] += n
			all += n
		}
	}
	best, bestN := "", int64(-1)
	for p, n := range by {
		if n > bestN || n == bestN && p < best {
			best, bestN = p, n
		}
	}
	if all == 0 {
		return "", 0, 0
	}
	return best, float64(bestN) / float64(all), len(by)
}

// kneeRule: a step of an open loop's rates where the store pushed back,
// with the prefix that took it and what to change.
func kneeRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	var out []document.Finding
	for _, r := range doc.Results {
		k := r.Knee
		if k == nil || !k.Found || k.Step >= len(r.RateSteps) {
			continue
		}
		peak := 0.0
		for _, s := range r.RateSteps {
			peak = max(peak, s.OfferedOpsPerS)
		}
		at := r.RateSteps[k.Step]
		ev := map[string]float64{"knee_ops_per_s": k.RateOpsPerS, "goodput_ops_per_s": k.GoodputOpsPerS,
			"carried_ops_per_s": k.CarriedOpsPerS, "knee_offered_ops_per_s": at.OfferedOpsPerS,
			"throttled_share": k.ThrottledShare, "peak_offered_ops_per_s": peak}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: the store pushed back at ~%s/s", stepName(r), rateNum(k.RateOpsPerS))
		if k.HotPrefix != "" {
			fmt.Fprintf(&b, " on prefix %s", k.HotPrefix)
			ev["hot_prefix_share"] = k.HotPrefixShare
			if k.ThrottledPrefixes > 1 {
				fmt.Fprintf(&b, " (%.0f%% of the throttled answers, %d prefixes throttled)", 100*k.HotPrefixShare, k.ThrottledPrefixes)
			}
		}
		fmt.Fprintf(&b, ": offered %s/s, %.0f%% of its answers were throttled and goodput settled at %s/s", rateNum(at.OfferedOpsPerS),
			100*at.ThrottledShare, rateNum(k.GoodputOpsPerS))
		if at.Retries > 0 {
			fmt.Fprintf(&b, ", the SDK retrying %s", plural(at.Retries, "request", "requests"))
		}
		if n := spreadOver(peak, k); n > 0 {
			ev["prefixes_suggested"] = float64(n)
			fmt.Fprintf(&b, "; spread keys over %d prefixes (--prefixes %d) or lower the rate below %s/s.", n, n, rateNum(k.RateOpsPerS))
		} else {
			fmt.Fprintf(&b, "; lower the rate below %s/s.", rateNum(k.RateOpsPerS))
		}
		out = append(out, finding("throttling-knee", Warn, b.String(), ev))
	}
	return out
}

// spreadOver is how many prefixes would carry peak at the knee's rate per
// prefix (the knee over the prefixes throttled, each taking its share):
// more than are used now; 0 when the rows name no prefix.
func spreadOver(peak float64, k *document.Knee) int {
	used := max(k.ThrottledPrefixes, 1)
	if k.HotPrefix == "" || k.RateOpsPerS <= 0 {
		return 0
	}
	n := int(math.Ceil(peak / (k.RateOpsPerS / float64(used)) * (1 - 1e-9)))
	return max(n, used+1)
}

// rateNum prints an operations-per-second figure: whole above 10.
func rateNum(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
