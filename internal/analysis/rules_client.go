package analysis

import (
	"fmt"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// Thresholds of the client rules.
const (
	// cpuShareWarn: client CPU per operation above this share of the
	// operation's p50 total time is worth a sentence: the client, not the
	// network or the service, holds part of the latency.
	cpuShareWarn = 0.25
	// cpuMinUs ignores figures too small to matter whatever their share.
	cpuMinUs = 200
)

// expectRule: uploads that sent "Expect: 100-continue". Sent but not
// waited is an SDK's header that saves nothing (aws-sdk-go-v2 over
// HTTP/1.1: its requests carry no protocol version, so Go's transport
// sends the body at once); waited costs one round trip per upload.
func expectRule(f *Facts) []document.Finding {
	if f.Doc == nil {
		return nil
	}
	var notWaited, waited []string
	ev := map[string]float64{}
	var worst float64
	for _, r := range f.Doc.Results {
		if r.Count == 0 || r.ExpectSent <= 0 {
			continue
		}
		if r.ExpectWaited < r.ExpectSent/2 {
			notWaited = append(notWaited, stepName(r))
			ev["steps_not_waited"]++
			continue
		}
		waited = append(waited, stepName(r))
		ev["steps_waited"]++
		worst = max(worst, r.PhasesMs["wait100"].P50)
	}
	var out []document.Finding
	if len(notWaited) > 0 {
		out = append(out, finding("expect-not-waited", Info, fmt.Sprintf(
			"%s sent \"Expect: 100-continue\" without waiting for it (the SDK's default, which Go's HTTP/1.1 "+
				"transport ignores): it saves nothing; --expect-continue measures the wait", listSteps(notWaited)), ev))
	}
	if len(waited) > 0 {
		ev["wait100_p50_ms"] = worst
		text := fmt.Sprintf("%s waited for \"100 Continue\" before sending the body (up to %s ms p50", listSteps(waited), fmtMs(worst))
		if rtt := f.rttMs(); rtt > 0 {
			ev["round_trips"] = worst / rtt
			text += fmt.Sprintf(", %.1f round trips", worst/rtt)
		}
		text += "); drop Expect unless large bodies are often refused"
		out = append(out, finding("expect-waited", Warn, text, ev))
	}
	return out
}

// listSteps names up to two steps and counts the rest.
func listSteps(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more steps", strings.Join(names[:2], ", "), len(names)-2)
}

// clientCPURule: steps where objbench's own CPU per operation is a large
// share of the operation's time (in a serverless function that CPU is
// billed and delays the next request).
func clientCPURule(f *Facts) []document.Finding {
	// On the embedded lab the servers run in the same process: the CPU is
	// not the client's alone.
	if f.Doc == nil || f.Doc.Lab != nil {
		return nil
	}
	var worst *document.Result
	share := 0.0
	for i := range f.Doc.Results {
		r := &f.Doc.Results[i]
		total := r.TotalMs.P50
		if r.Count == 0 || r.ClientCPUusPerOp < cpuMinUs || total <= 0 {
			continue
		}
		// Per-operation CPU against per-operation wall time at this concurrency.
		s := r.ClientCPUusPerOp / 1000 / total * float64(max(r.Concurrency, 1))
		if s > share {
			worst, share = r, s
		}
	}
	if worst == nil || share < cpuShareWarn {
		return nil
	}
	text := fmt.Sprintf("%s: the client spent %.0f µs of CPU per operation, %.0f%% of the operation's p50 time per worker",
		stepName(*worst), worst.ClientCPUusPerOp, 100*share)
	text += "; on a small machine or a serverless function this CPU is billed and delays the next request"
	return []document.Finding{finding("client-cpu", Info, text, map[string]float64{
		"client_cpu_us_per_op": worst.ClientCPUusPerOp, "cpu_share": share})}
}
