package analysis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// wireRule: steps on the lab whose wire this machine could not keep on
// time. Busy: over 5% of the packets came late (the CPU was elsewhere), so
// the step's times are partly the machine's. Imprecise: behind a queue of
// a few packets at tens of Mbit/s and up, over 10% came a tenth of a
// millisecond late, which there moves a transfer by up to three times
// (the lab judges both, document.WireStats). One finding each, naming
// the steps.
func wireRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok || doc.Lab == nil {
		return nil
	}
	var busy, imprecise wireSteps
	for _, s := range document.Steps(doc.Results) {
		r := doc.Results[s[0]]
		if r.Wire == nil {
			continue
		}
		both := r.Wire.Up.Add(r.Wire.Down)
		if r.Wire.Busy {
			busy.add(r, share(both.Late, both.Packets))
		}
		if r.Wire.Imprecise {
			imprecise.add(r, share(both.Tardy, both.Packets))
		}
	}
	var out []document.Finding
	if busy.n > 0 {
		out = append(out, finding("lab-machine-busy", High, fmt.Sprintf(
			"this machine held %s of the lab wire's packets over %s ms past their time in %s: its CPU was elsewhere, so those times are partly the machine's, not the emulated network's; run fewer clients at once, or on a quieter machine",
			busy.pct(), strconv.FormatFloat(busy.lateAfterMs, 'g', 3, 64), busy.names()), map[string]float64{"late_share": busy.share, "steps": float64(busy.n)}))
	}
	if imprecise.n > 0 {
		queue := "queue"
		if doc.Lab.MTU > 0 {
			queue = fmt.Sprintf("queue of %d packets", (doc.Lab.Queue+doc.Lab.MTU-1)/doc.Lab.MTU)
		}
		at := ""
		if doc.Lab.Bandwidth != "" {
			at = " at " + doc.Lab.Bandwidth
		}
		why := "the machine's CPU woke late for them, or was elsewhere"
		if doc.Lab.Network == "netns" {
			why = "on the netns path the wire keeps Go's timers, which hand packets over about once a millisecond: Linux's receive autotuning stalls on finer ones"
		}
		fix := "; --exact-wire keeps the wire's CPU awake before each packet's time, at up to a core each way"
		if doc.Lab.ExactWire {
			why, fix = "with --exact-wire: the machine's cores were busy elsewhere", "; give the run more cores or fewer clients"
		}
		out = append(out, finding("lab-wire-imprecise", Warn, fmt.Sprintf(
			"behind the lab's %s%s, the wire delivered %s of its packets 0.1 ms or more past their time in %s (%s): behind so small a queue that alone can move a transfer's time by up to three times, so compare these times only with runs on this machine%s (docs/lab.md, \"What the wire did, and whether the machine kept its time\")",
			queue, at, imprecise.pct(), imprecise.names(), why, fix), map[string]float64{"tardy_share": imprecise.share, "steps": float64(imprecise.n)}))
	}
	return out
}

// wireSteps gathers the steps a wire finding names, with the worst share.
type wireSteps struct {
	n                  int
	share, lateAfterMs float64
	first              string
}

func (w *wireSteps) add(r document.Result, share float64) {
	if w.n == 0 {
		w.first, w.lateAfterMs = stepName(r), r.Wire.LateAfterMs
	}
	if w.n == 0 || share > w.share {
		w.share = share
	}
	w.n++
}

func (w *wireSteps) names() string {
	if w.n == 1 {
		return w.first
	}
	return fmt.Sprintf("%s and %d other step%s", w.first, w.n-1, strings.Repeat("s", min(w.n-2, 1)))
}

// pct is the share, the worst step's where there are several.
func (w *wireSteps) pct() string {
	if w.n == 1 {
		return fmt.Sprintf("%.0f%%", 100*w.share)
	}
	return fmt.Sprintf("up to %.0f%%", 100*w.share)
}

func share(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}
