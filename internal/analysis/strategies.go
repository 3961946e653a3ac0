package analysis

import (
	"fmt"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/units"
)

// StrategyRows turns results into table rows, with speed-ups against
// sdk-default, one sentence per op and size, and the first-vs-later table.
func StrategyRows(all []*load.StrategyResult) ([]document.StrategyRow, []string, *document.FirstVsLater) {
	var rows []document.StrategyRow
	var summary []string
	var fvl *document.FirstVsLater
	type group struct {
		op   string
		size int64
	}
	base := map[group]*load.StrategyResult{}
	for _, r := range all {
		if r.Spec.Name == load.SDKDefault && r.Available {
			base[group{r.Op, r.Size}] = r
		}
	}
	best := map[group]*load.StrategyResult{}
	var order []group
	for _, r := range all {
		g := group{r.Op, r.Size}
		if _, seen := best[g]; !seen {
			order = append(order, g)
			best[g] = nil
		}
		row := document.StrategyRow{Strategy: r.Spec.Name, Description: r.Spec.Description, Op: r.Op, Objects: r.Objects,
			SizeBytes: r.Size, Concurrency: r.Spec.Concurrency, Available: r.Available, Reason: r.Reason,
			Errors: r.Errors, ErrorsByClass: r.ErrorsByClass, RTTs: map[string]float64{}}
		if row.Concurrency == 0 {
			row.Concurrency = r.Objects
		}
		if r.Available {
			row.WallS = r.Wall.Seconds()
			row.ObjectsPerS = float64(r.Count) / r.Wall.Seconds()
			row.P50ms, row.P99ms = Ms(r.P50), Ms(r.P99)
			row.Connections, row.TLSHandshakes = r.Connections, r.TLSHandshakes
			row.RequestsPerObject = float64(r.Requests) / float64(max(r.Count, 1))
			row.RTTms = Ms(r.RTT)
			for _, p := range nettrace.Phases() {
				row.RTTs[p.String()] = r.RTTs(p)
			}
			for proto := range r.Protocols {
				row.Protocol = proto
			}
			if b := base[g]; b != nil {
				row.Speedup = b.Wall.Seconds() / r.Wall.Seconds()
			}
			if bb := best[g]; bb == nil || r.Wall < bb.Wall {
				best[g] = r
			}
			if r.Op == "get" && r.Spec.Name == load.ReusedConnection && fvl == nil && r.FirstN > 0 && r.LaterN > 0 {
				fvl = &document.FirstVsLater{Strategy: r.Spec.Name,
					First: map[string]float64{"connect": Ms(r.First[nettrace.Connect]), "tls": Ms(r.First[nettrace.TLS]), "total": Ms(r.FirstTotal)},
					Later: map[string]float64{"connect": Ms(r.Later[nettrace.Connect]), "tls": Ms(r.Later[nettrace.TLS]), "total": Ms(r.LaterTotal)}}
			}
		}
		rows = append(rows, row)
	}
	for _, g := range order {
		b, w := base[g], best[g]
		if b == nil || w == nil || w == b {
			continue
		}
		summary = append(summary, SavingSentence(b, w))
	}
	return rows, summary, fvl
}

// SavingSentence names the largest saving and the phase it came from.
func SavingSentence(base, best *load.StrategyResult) string {
	verb := map[string]string{"put": "uploads", "get": "downloads"}[base.Op]
	var phase nettrace.Phase
	var saved float64
	for _, p := range nettrace.Phases() {
		// Round trips per object that the sequential base spends and the best does not.
		if d := base.RTTs(p) - best.RTTs(p)/float64(max(best.Spec.Concurrency, 1)); d > saved {
			phase, saved = p, d
		}
	}
	s := fmt.Sprintf("%d %s of %s: %s takes %.2f s instead of %.2f s with sdk-default (%.0fx faster)",
		base.Objects, verb, units.FormatSize(base.Size), best.Spec.Name, best.Wall.Seconds(), base.Wall.Seconds(),
		base.Wall.Seconds()/best.Wall.Seconds())
	if saved > 0 {
		s += fmt.Sprintf("; the largest saving is in %s: sdk-default spends %.1f round trips per object there, %s %.1f",
			phase, base.RTTs(phase), best.Spec.Name, best.RTTs(phase))
		if best.Spec.Concurrency != 1 {
			s += " and overlaps them across objects"
		}
	}
	return s + "."
}

func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
