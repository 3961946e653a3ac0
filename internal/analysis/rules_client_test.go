package analysis

import (
	"slices"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

func TestClientRules(t *testing.T) {
	t.Parallel()
	put := func(sent, waited, cpuUs float64, conc int) document.Result {
		r := document.Result{Workload: "throughput", Op: "put", SizeBytes: 8 << 20, Concurrency: conc, Count: 10,
			ExpectSent: sent, ExpectWaited: waited, ClientCPUusPerOp: cpuUs}
		r.TotalMs.P50 = 10
		r.PhasesMs = map[string]document.PhaseDist{"wait100": {P50: 40}}
		return r
	}
	cases := []struct {
		name string
		lab  bool
		res  []document.Result
		fire []string // finding ids expected, in rule order
	}{
		{"no expect, little cpu", false, []document.Result{put(0, 0, 100, 1)}, nil},
		{"sent, not waited", true, []document.Result{put(1, 0, 0, 1), put(1, 0.2, 0, 1)}, []string{"expect-not-waited"}},
		{"sent and waited", true, []document.Result{put(1, 1, 0, 1)}, []string{"expect-waited"}},
		{"half waited counts as waited", true, []document.Result{put(1, 0.5, 0, 1)}, []string{"expect-waited"}},
		{"cpu 30% of p50", false, []document.Result{put(0, 0, 3000, 1)}, []string{"client-cpu"}},
		{"cpu 20% of p50", false, []document.Result{put(0, 0, 2000, 1)}, nil},
		{"cpu share grows with concurrency", false, []document.Result{put(0, 0, 1000, 4)}, []string{"client-cpu"}},
		{"cpu below the floor", false, []document.Result{put(0, 0, 150, 100)}, nil},
		{"lab: cpu includes the servers", true, []document.Result{put(0, 0, 5000, 1)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &document.Document{Results: c.res}
			if c.lab {
				d.Lab = &document.LabInfo{RTTms: 40}
			}
			var ids []string
			for _, f := range append(expectRule(&Facts{Doc: d}), clientCPURule(&Facts{Doc: d})...) {
				ids = append(ids, f.ID)
				if f.Text == "" || len(f.Evidence) == 0 {
					t.Errorf("%s: empty text or evidence", f.ID)
				}
			}
			if !slices.Equal(ids, c.fire) {
				t.Errorf("fired %v, want %v", ids, c.fire)
			}
		})
	}
	// The waited finding counts round trips at the lab's RTT.
	d := &document.Document{Results: []document.Result{put(1, 1, 0, 1)}}
	d.Lab = &document.LabInfo{RTTms: 40}
	if f := expectRule(&Facts{Doc: d}); len(f) != 1 || f[0].Evidence["round_trips"] != 1 {
		t.Errorf("waited: %+v", f)
	}
}
