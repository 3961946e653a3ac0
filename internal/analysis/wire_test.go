package analysis

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// TestWireFindings: a step whose wire the machine held late, or (behind
// a small queue) tardy, is named in one finding of each kind, with the
// worst step's share; a mixed step counts once; a step with no wire (off
// the lab) or a clean one is not named.
func TestWireFindings(t *testing.T) {
	t.Parallel()
	step := func(op string, c int, late, tardy int64, busy, imprecise bool) document.Result {
		r := document.Result{Workload: "concurrency", Op: op, SizeBytes: 4 << 20, Concurrency: c}
		r.Wire = &document.WireStats{Up: document.WireWay{Packets: 40, Late: late / 2, Tardy: tardy / 2},
			Down: document.WireWay{Packets: 60, Late: late - late/2, Tardy: tardy - tardy/2}, LateAfterMs: 2, Busy: busy, Imprecise: imprecise}
		return r
	}
	clean := step("get", 1, 0, 3, false, false)
	off := document.Result{Workload: "latency", Op: "get", SizeBytes: 1024}
	mixed := func(busy bool) []document.Result {
		a, b := step("get", 8, 12, 30, busy, false), step("put", 8, 12, 30, busy, false)
		a.Workload, b.Workload = document.Mixed, document.Mixed
		return []document.Result{a, b}
	}
	for _, tc := range []struct {
		name string
		rs   []document.Result
		want []string // ids, in order
		text []string
	}{
		{"clean, and off the lab", []document.Result{clean, off}, nil, nil},
		{"one busy step", []document.Result{clean, step("get", 64, 12, 40, true, false)}, []string{"lab-machine-busy"},
			[]string{"held 12% of the lab wire's packets over 2 ms past their time in get 4MiB c=64:", "partly the machine's"}},
		{"three busy, the worst share told", []document.Result{step("get", 16, 7, 0, true, false), step("get", 32, 20, 0, true, false), step("get", 64, 9, 0, true, false)},
			[]string{"lab-machine-busy"}, []string{"held up to 20% of", "in get 4MiB c=16 and 2 other steps:"}},
		{"a mixed step counts once", mixed(true), []string{"lab-machine-busy"}, []string{"in get 4MiB c=8:"}},
		{"imprecise behind 8 packets", []document.Result{step("get", 1, 0, 31, false, true)}, []string{"lab-wire-imprecise"},
			[]string{"behind the lab's queue of 8 packets at 200Mbit, the wire delivered 31% of its packets 0.1 ms or more past their time in get 4MiB c=1", "(the machine's CPU woke late for them", "up to three times", "--exact-wire keeps the wire's CPU awake"}},
		{"imprecise with --exact-wire: busy cores", []document.Result{step("get", 1, 0, 12, false, true)}, []string{"lab-wire-imprecise"},
			[]string{"(with --exact-wire: the machine's cores were busy elsewhere)", "give the run more cores"}},
		{"imprecise on the netns path: Go's timers", []document.Result{step("get", 1, 0, 97, false, true)}, []string{"lab-wire-imprecise"},
			[]string{"delivered 97% of", "(on the netns path the wire keeps Go's timers"}},
		{"busy and imprecise: high first", []document.Result{step("get", 1, 9, 31, true, true), step("get", 2, 0, 12, false, true)},
			[]string{"lab-machine-busy", "lab-wire-imprecise"}, []string{"held 9% of", "delivered up to 31% of", "in get 4MiB c=1 and 1 other step "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := labDoc(tc.rs...)
			d.Lab.Queue, d.Lab.MTU, d.Lab.Bandwidth, d.Lab.Network = 12000, 1500, "200Mbit", "netstack"
			if strings.Contains(tc.name, "netns") {
				d.Lab.Network = "netns"
			}
			d.Lab.ExactWire = strings.Contains(tc.name, "--exact-wire")
			fs := Findings(&Facts{Doc: d})
			var ids []string
			var all strings.Builder
			for _, f := range fs {
				if strings.HasPrefix(f.ID, "lab-") {
					ids = append(ids, f.ID)
					all.WriteString(f.Text + "\n")
				}
			}
			if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("findings %v, want %v:\n%s", ids, tc.want, all.String())
			}
			for _, s := range tc.text {
				if !strings.Contains(all.String(), s) {
					t.Errorf("no %q in:\n%s", s, all.String())
				}
			}
		})
	}
}
