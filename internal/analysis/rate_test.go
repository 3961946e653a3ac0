package analysis

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// openMixed is a mixed step at rate ops/s over wall seconds with the mix
// get=70,put=20,list=5,head=3,delete=2: done[op] operations done, late[op]
// late starts, every op 85 ms on average.
func openMixed(rate, wall float64, done, late map[string]int64, dropped int64) *document.Document {
	shares := map[string]float64{"get": 0.70, "put": 0.20, "list": 0.05, "head": 0.03, "delete": 0.02}
	d := labDoc()
	d.Options["mix"] = "get=70,put=20,list=5,head=3,delete=2"
	for _, op := range []string{"delete", "get", "head", "list", "put"} {
		n, ok := done[op]
		if !ok {
			continue
		}
		r := document.Result{Workload: "mixed", Op: op, Concurrency: 64, Strategy: "pooled", Count: n, WallS: wall,
			TotalMs: document.Dist{Mean: 85},
			OpenLoop: &document.OpenLoop{Rate: "100", OfferedOps: rate * wall * shares[op], Late: late[op], MaxInflight: 64,
				AchievedOpsPerS: float64(n) / wall}}
		if op == "get" {
			r.OpenLoop.Dropped = dropped
		}
		d.Results = append(d.Results, r)
	}
	return d
}

// TestRateFindings: a step is judged as a whole against a Poisson bound
// on its count, an op of a mix against a binomial bound on its share.
// The bounds, by hand: 1500 offered allow 3 x sqrt(1500) + 1 = 117 short,
// besides the 100 ops/s x 0.085 s = 8.5 in flight at the end; a 2% op of
// 1500 is 30 ± 3 x sqrt(1500 x 0.02 x 0.98) + 1 = 30 ± 17.3.
func TestRateFindings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		doc  *document.Document
		want []string // finding ids, in order
		text []string // in the findings' text
	}{
		{"the issue's run: delete 2 ops/s of 2 with 4 late is noise",
			openMixed(100, 15, map[string]int64{"get": 1046, "put": 301, "list": 75, "head": 42, "delete": 28}, map[string]int64{"delete": 4, "get": 40}, 0),
			nil, nil},
		{"short by 9% of 1500: 136 > 117 + 8.5",
			openMixed(100, 15, map[string]int64{"get": 950, "put": 272, "list": 68, "head": 41, "delete": 25}, nil, 0),
			[]string{"rate-not-reached"}, []string{"achieved 90.4 ops/s of 100.0 offered (1356 operations of 1500 offered in 15.0 s, 8 in flight at the end",
				"136 short, beyond the 117 that chance allows"}},
		{"short by 7%: 97 is within 117 + 8.5",
			openMixed(100, 15, map[string]int64{"get": 982, "put": 280, "list": 70, "head": 43, "delete": 28}, nil, 0),
			nil, nil},
		{"a dropped operation is always told",
			openMixed(100, 15, map[string]int64{"get": 1046, "put": 301, "list": 75, "head": 42, "delete": 28}, nil, 3),
			[]string{"rate-not-reached"}, []string{"late 0, dropped 3", "3 operations started more than --max-late"}},
		{"delete 10 of 1492 where 30 ± 17.3 is chance",
			openMixed(100, 15, map[string]int64{"get": 1066, "put": 301, "list": 75, "head": 40, "delete": 10}, nil, 0),
			[]string{"mix-share"}, []string{"delete made 0.7% of the 1492 operations done, not its 2.0% of the mix (10, where 30 ± 17 is chance"}},
		{"delete 14 of 1492 is within 30 ± 17.3",
			openMixed(100, 15, map[string]int64{"get": 1062, "put": 301, "list": 75, "head": 40, "delete": 14}, nil, 0),
			nil, nil},
		{"an op with no result still counts in what was offered",
			openMixed(100, 15, map[string]int64{"get": 1046, "put": 301, "list": 75, "head": 42}, nil, 0),
			[]string{"mix-share"}, nil},
	}
	for _, c := range cases {
		fs := rateRule(&Facts{Doc: c.doc})
		var ids []string
		var text string
		for _, f := range fs {
			ids = append(ids, f.ID)
			text += f.Text + "\n"
		}
		if strings.Join(ids, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: findings %v, want %v:\n%s", c.name, ids, c.want, text)
			continue
		}
		for _, s := range c.text {
			if !strings.Contains(text, s) {
				t.Errorf("%s: %q not in\n%s", c.name, s, text)
			}
		}
	}
}

// TestRateFindingClosedLoop: closed-loop steps offer no rate to miss.
func TestRateFindingClosedLoop(t *testing.T) {
	t.Parallel()
	if fs := rateRule(&Facts{Doc: labDoc(getStep())}); len(fs) != 0 {
		t.Errorf("closed loop: %v", fs)
	}
}

func TestTwoFigures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b float64
		x, y string
	}{
		{93.52, 100, "93.5", "100.0"},
		{1.98, 2.0, "1.98", "2.00"},
		{99.9996, 100, "99.9996", "100.0000"},
	}
	for _, c := range cases {
		if x, y := twoFigures(c.a, c.b); x != c.x || y != c.y {
			t.Errorf("twoFigures(%v, %v) = %s, %s; want %s, %s", c.a, c.b, x, y, c.x, c.y)
		}
	}
}

// TestRateFindingSaysWhy: a step short of its rate names what held it:
// the client's CPU when it was busy, else the workers (--max-inflight)
// at the service time when they cannot carry the rate.
func TestRateFindingSaysWhy(t *testing.T) {
	t.Parallel()
	// 200 ops/s offered for 5 s; 154 done by 4 workers, 83 ms each from
	// their actual send (Little's law: 4 / 0.083 s = 48.2 ops/s at most);
	// at most the 4 workers' operations were in flight at the end.
	short := func(cpuUs float64) *document.Document {
		d := labDoc()
		d.Client.CPUs = 2
		d.Options["mix"] = "get=100"
		uncorrected := document.Dist{Mean: 83}
		d.Results = []document.Result{{Workload: "mixed", Op: "get", Concurrency: 4, Count: 154, WallS: 5,
			TotalMs: document.Dist{Mean: 2100}, TotalUncorrectedMs: &uncorrected, ClientCPUusPerOp: cpuUs,
			OpenLoop: &document.OpenLoop{Rate: "200", OfferedOps: 1000, MaxInflight: 4, LatencyFrom: "intended"}}}
		return d
	}
	cases := []struct {
		name  string
		cpuUs float64
		want  string
	}{
		{"idle client: the workers", 1000, "154 operations of 1000 offered in 5.0 s, 4 in flight at the end; late 0, dropped 0): 842 short, beyond the 96 " +
			"that chance allows (3 standard deviations of a Poisson count); --max-inflight 4 at 83.0 ms per operation allows at most 48.2 ops/s: raise it"},
		// 154 x 60 ms = 9.24 s of CPU in 5 s: 1.85 of 2 cores.
		{"busy client: its CPU", 60000, "the lab's servers, which run in it) used 92% of the 2 cores its workers could use"},
	}
	for _, c := range cases {
		fs := rateRule(&Facts{Doc: short(c.cpuUs)})
		if len(fs) != 1 || !strings.Contains(fs[0].Text, c.want) {
			t.Errorf("%s: %v\nwant %q", c.name, fs, c.want)
		}
	}
}
