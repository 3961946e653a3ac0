package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
)

// rateZ is how many standard deviations of a count's sampling error a gap
// must exceed to be reported: at 3, a step that kept its rate is warned
// about about once in 700.
const rateZ = 3

// rateRule: open-loop steps that did not reach their offered rate, and
// ops of a mix whose share of the operations is off the mix's.
//
// A step is judged as a whole (a mixed step's ops together): the
// operations done against those offered over its wall time, less the ones
// still in flight when its time ran out (offered rate x mean service time
// by Little's law, at most every worker: they were started but cannot
// count). What is left is a
// shortfall only beyond rateZ standard deviations of a Poisson count of
// the offered mean (uniform arrivals vary less, so the bound is safe for
// both). An op of a mix is named only when its count is off its share by
// more than rateZ binomial standard deviations: a 2% op's few late starts
// are the noise of a small count, not a rate missed.
func rateRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	var out []document.Finding
	for _, s := range document.Steps(doc.Results) {
		out = append(out, stepRate(doc, doc.Results[s[0]:s[1]])...)
	}
	return out
}

// RateWarnings are the sentences of the rate findings, for a warning on
// the terminal as the run ends.
func RateWarnings(d *document.Document) []string {
	var out []string
	for _, x := range rateRule(&Facts{Doc: d}) {
		out = append(out, "warning: "+x.Text)
	}
	return out
}

func stepRate(doc *document.Document, rs []document.Result) []document.Finding {
	var offered, done, wall, latency float64
	var late, dropped int64
	for _, r := range rs {
		if r.OpenLoop == nil || r.OpenLoop.OfferedOps <= 0 {
			return nil
		}
		offered += r.OpenLoop.OfferedOps
		done += float64(r.Count + r.Errors)
		wall = max(wall, r.WallS)
		latency += serviceMs(r) / 1000 * float64(r.Count)
		late += r.OpenLoop.Late
		dropped += r.OpenLoop.Dropped
	}
	if wall <= 0 {
		return nil
	}
	shares := mixShares(rs, doc.Options["mix"])
	if len(rs) > 1 || rs[0].Workload == document.Mixed {
		// Ops of the mix that never ran have no result: the offered count
		// is the present ops' over their share.
		sum := 0.0
		for _, r := range rs {
			sum += shares[r.Op]
		}
		if sum > 0 && sum < 1 {
			offered /= sum
		}
	}
	if done > 0 {
		latency /= done
	}
	name := stepName(rs[0])
	if rs[0].Workload == document.Mixed {
		name = fmt.Sprintf("mixed step (%d ops, c=%d)", len(rs), rs[0].Concurrency)
	}
	// Started but not done when the time ran out: at most every worker.
	inflight := offered / wall * latency
	maxInflight := float64(rs[0].OpenLoop.MaxInflight)
	if maxInflight > 0 {
		inflight = min(inflight, maxInflight)
	}
	short := offered - done - inflight
	allowed := rateZ*math.Sqrt(offered) + 1
	ev := map[string]float64{"offered_ops": offered, "done_ops": done, "in_flight_at_end": inflight,
		"shortfall_ops": short, "allowed_ops": allowed, "late": float64(late), "dropped": float64(dropped), "wall_s": wall}
	var out []document.Finding
	if short > allowed || dropped > 0 {
		a, o := twoFigures(done/wall, offered/wall)
		text := fmt.Sprintf("%s: rate not reached: achieved %s ops/s of %s offered (%.0f operations of %.0f offered in %.1f s",
			name, a, o, done, offered, wall)
		if inflight >= 0.5 {
			text += fmt.Sprintf(", %.0f in flight at the end", inflight)
		}
		text += fmt.Sprintf("; late %d, dropped %d)", late, dropped)
		if short > allowed {
			text += fmt.Sprintf(": %.0f short, beyond the %.0f that chance allows (%d standard deviations of a Poisson count)", short, allowed, rateZ)
			u, measured := cpuUseOf(doc, rs)
			switch most := maxInflight / latency; {
			case measured && u.bound():
				text += "; " + u.sentence()
			case maxInflight > 0 && latency > 0 && most < 1.05*offered/wall:
				// Little's law: the workers, each busy for the service time.
				text += fmt.Sprintf("; --max-inflight %.0f at %s ms per operation allows at most %.1f ops/s: raise it", maxInflight, fmtMs(1000*latency), most)
				ev["max_ops_per_s"] = most
			case measured:
				text += "; " + u.sentence()
			default:
				text += "; the client or the service could not keep the rate"
			}
			if measured {
				ev["cpu_cores"], ev["cpu_share"] = u.cores, u.share()
			}
		} else {
			text += fmt.Sprintf(": %d operations started more than --max-late after their time and were dropped", dropped)
		}
		out = append(out, finding("rate-not-reached", High, text, ev))
	}
	if rs[0].Workload != document.Mixed || done < 1 {
		return out
	}
	count := map[string]float64{}
	for _, r := range rs {
		count[r.Op] += float64(r.Count + r.Errors)
	}
	for _, op := range slices.Sorted(maps.Keys(shares)) {
		p := shares[op]
		if p <= 0 || p >= 1 {
			continue
		}
		n := count[op] // 0 for an op of the mix that never ran
		want := done * p
		sd := math.Sqrt(done * p * (1 - p))
		if math.Abs(n-want) <= rateZ*sd+1 {
			continue
		}
		got, exp := twoFigures(100*n/done, 100*p)
		why := "its operations were held back (slower than the others, or failing before they could count)"
		if n > want {
			why = "the other ops were held back"
		}
		out = append(out, finding("mix-share", Warn, fmt.Sprintf(
			"mixed step: %s made %s%% of the %.0f operations done, not its %s%% of the mix (%.0f, where %.0f ± %.0f is chance at %d standard deviations): %s",
			op, got, done, exp, n, want, rateZ*sd+1, rateZ, why),
			map[string]float64{"ops": n, "expected_ops": want, "allowed_ops": rateZ*sd + 1, "share": n / done, "mix_share": p}))
	}
	return out
}

// mixShares are the ops' shares of the mix: from the run's --mix option,
// else from what each op was offered.
func mixShares(rs []document.Result, mix string) map[string]float64 {
	out := map[string]float64{}
	if ws, err := load.ParseMix(mix); mix != "" && err == nil {
		for _, w := range ws {
			out[w.Value] = w.Weight / 100
		}
		return out
	}
	total := 0.0
	for _, r := range rs {
		total += r.OpenLoop.OfferedOps
	}
	for _, r := range rs {
		if total > 0 {
			out[r.Op] = r.OpenLoop.OfferedOps / total
		}
	}
	return out
}

// twoFigures prints a and b with the fewest decimals (one at least, up to
// four) that show them apart, so that a gap is never printed as "2 of 2".
func twoFigures(a, b float64) (string, string) {
	for d := 1; d < 4; d++ {
		x, y := strconv.FormatFloat(a, 'f', d, 64), strconv.FormatFloat(b, 'f', d, 64)
		if x != y {
			return x, y
		}
	}
	return strconv.FormatFloat(a, 'f', 4, 64), strconv.FormatFloat(b, 'f', 4, 64)
}

// serviceMs is an operation's mean time from its actual send to its end
// (the latency uncorrected for the wait before it could start).
func serviceMs(r document.Result) float64 {
	if r.OpenLoop != nil && r.OpenLoop.LatencyFrom != load.FromActual && r.TotalUncorrectedMs != nil {
		return r.TotalUncorrectedMs.Mean
	}
	return r.TotalMs.Mean
}
