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
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	var notWaited, waited []string
	ev := map[string]float64{}
	var worst float64
	for _, r := range doc.Results {
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
	doc, ok := f.Doc.(*document.Document)
	if !ok || doc.Lab != nil {
		return nil
	}
	var worst *document.Result
	share := 0.0
	for i := range doc.Results {
		r := &doc.Results[i]
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

// cpuBoundShare: a step whose process wanted (CPU time, plus time waiting
// for a CPU that other work held) this share of the cores its workers
// could keep busy was limited by its own CPU.
const cpuBoundShare = 0.8

// cpuUse is how busy objbench's process was across a step.
type cpuUse struct {
	cores float64 // CPU wanted (time used plus waited) over wall time, in cores
	wait  float64 // of which waited for: runnable, but another process held the CPU
	limit float64 // the cores the step's workers could keep busy
	lab   bool    // the embedded lab served in the process: its CPU is in cores
}

// cpuUseOf is the process's CPU across the results of one step (a mixed
// step's ops share its CPU by operations, so their parts add up); ok is
// false when the CPU was not measured.
func cpuUseOf(d *document.Document, rs []document.Result) (cpuUse, bool) {
	var us, wait, wall float64
	for _, r := range rs {
		us += (r.ClientCPUusPerOp + r.ClientRunWaitUsPerOp) * float64(r.Count+r.Errors)
		wait += r.ClientRunWaitUsPerOp * float64(r.Count+r.Errors)
		wall = max(wall, r.WallS)
	}
	if us <= 0 || wall <= 0 {
		return cpuUse{}, false
	}
	limit := float64(max(rs[0].Concurrency, 1))
	if cpus := d.Client.CPUs; cpus > 0 {
		limit = min(limit, float64(cpus))
	}
	return cpuUse{cores: us / 1e6 / wall, wait: wait / 1e6 / wall, limit: limit, lab: d.Lab != nil}, true
}

func (u cpuUse) share() float64 { return u.cores / u.limit }

func (u cpuUse) bound() bool { return u.share() >= cpuBoundShare }

// sentence says who limited the step: this client's CPU, or the server or
// the path.
func (u cpuUse) sentence() string {
	of := "a core"
	if u.limit != 1 {
		of = fmt.Sprintf("the %g cores its workers could use", u.limit)
	}
	who := "the client"
	if u.lab {
		who = "objbench's process (the client and the lab's servers, which run in it)"
	}
	if u.bound() {
		s := fmt.Sprintf("%s used %.0f%% of %s (%.2f cores of CPU): ", who, 100*u.share(), of, u.cores)
		if u.wait >= 0.01 {
			s = fmt.Sprintf("%s wanted %.0f%% of %s (%.2f cores of CPU used, %.2f more waited for while other work held them): ",
				who, 100*u.share(), of, u.cores-u.wait, u.wait)
		}
		if u.lab {
			return s + "the machine's CPU is the limit, not the emulated path; run the lab apart (objbench lab) or on a larger machine"
		}
		return s + "this client's CPU is the limit; spread the load over more clients (--shard) or a larger machine"
	}
	s := fmt.Sprintf("%s was %.0f%% busy (%.2f of %s): ", who, 100*u.share(), u.cores, of)
	if u.lab {
		return s + "the emulated path (its round trips and bandwidth) is the limit, not the CPU"
	}
	return s + "the server or the path is the limit, not this client"
}
