package threshold

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

func runDoc() *document.Document {
	d := &document.Document{Envelope: document.Envelope{Lab: &document.LabInfo{RTTms: 80}}}
	d.Results = []document.Result{
		{Workload: "latency", Op: "get", SizeBytes: 1024, Count: 99, Errors: 1, TTFBms: document.Dist{P50: 81, P99: 140}, TotalMs: document.Dist{P50: 82, P99: 150},
			AggregateMBps: 0.5, ReusedFraction: 0.99, PhasesMs: map[string]document.PhaseDist{"wait": {P50: 80, P99: 120}}},
		{Workload: "throughput", Op: "get", SizeBytes: 1 << 20, Count: 10, TTFBms: document.Dist{P50: 90, P99: 200}, TotalMs: document.Dist{P50: 400, P99: 600},
			AggregateMBps: 2.5, ReusedFraction: 0.9},
		{Workload: "throughput", Op: "put", SizeBytes: 1 << 20, Count: 10, TotalMs: document.Dist{P50: 170, P99: 300}, WallS: 3},
	}
	return d
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr     string
		pass     bool
		measured float64
		step     string
		err      string
	}{
		{"get.ttfb.p99<150ms", false, 200, "throughput get 1048576B", ""}, // the worst of the two GET steps
		{"get.ttfb.p99<0.25s", true, 200, "throughput get 1048576B", ""},
		{"get.ttfb.p50 <= 90ms", true, 90, "throughput get 1048576B", ""},
		{"put.total.p50<2*rtt", false, 170, "throughput put 1048576B", ""},
		{"put.total.p50<2.5*rtt", true, 170, "throughput put 1048576B", ""},
		{"get.wait.p99<=1.5*rtt", true, 120, "latency get 1024B", ""},
		{"errors<0.1%", false, 1.0 / 120, "", ""},
		{"errors<=1", true, 1, "", ""},
		{"get.agg_mb_per_s>1", false, 0.5, "latency get 1024B", ""}, // the lowest
		{"get.reused>=90%", true, 0.9, "throughput get 1048576B", ""},
		{"put.wall_s<5s", true, 3, "throughput put 1048576B", ""},
		{"all.total.p99<700", true, 600, "throughput get 1048576B", ""},
		{"head.total.p99<10ms", false, 0, "", "no step measured it"},
		{"all.wall_s<50*rtt", true, 3, "throughput put 1048576B", ""}, // 4 s: the rtt in seconds, once for all rows
		{"all.wall_s<30*rtt", false, 3, "throughput put 1048576B", ""},
	} {
		ts, err := Parse([]string{tc.expr}, Run)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		res, ok := Check(ts, runDoc())
		r := res[0]
		if ok != tc.pass || r.Pass != tc.pass || abs(r.Measured-tc.measured) > 1e-9 || r.Step != tc.step || r.Error != tc.err {
			t.Errorf("%s: pass %v measured %g step %q error %q; want %v %g %q %q", tc.expr, r.Pass, r.Measured, r.Step, r.Error, tc.pass, tc.measured, tc.step, tc.err)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestCheckStrategiesAndExplain(t *testing.T) {
	t.Parallel()
	s := &document.StrategiesDocument{Strategies: []document.StrategyRow{
		{Strategy: "sdk-default", Op: "put", P50ms: 300, P99ms: 400, WallS: 20, Available: true, Objects: 50},
		{Strategy: "http2", Op: "put", P50ms: 90, P99ms: 95, WallS: 0.3, Available: true, Objects: 50},
		{Strategy: "http2", Op: "get", Available: false},
	}}
	e := &document.ExplainDocument{Explain: document.Explain{RTTms: 80, ConnectionsPerObject: 0.5, Requests: 40, Errors: 0}}
	for _, tc := range []struct {
		kind, expr string
		doc        document.Doc
		pass       bool
		measured   float64
	}{
		{Strategies, "http2.put.p50<2*rtt", s, false, 90}, // no lab: see below
		{Strategies, "put.wall_s<1", s, false, 20},
		{Strategies, "http2.wall_s<1", s, true, 0.3}, // the unavailable GET row is left out
		{Explain, "explain.connections_per_object<=0.1", e, false, 0.5},
		{Explain, "explain.connections_per_object<=0.5", e, true, 0.5},
		{Explain, "errors<1%", e, true, 0},
		{Explain, "explain.wall_s<100*rtt", &document.ExplainDocument{Explain: document.Explain{RTTms: 80, WallS: 7}}, true, 7},
	} {
		ts, err := Parse([]string{tc.expr}, tc.kind)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		res, _ := Check(ts, tc.doc)
		if res[0].Pass != tc.pass || (res[0].Error == "" && res[0].Measured != tc.measured) {
			t.Errorf("%s: %+v, want pass %v measured %g", tc.expr, res[0], tc.pass, tc.measured)
		}
	}
	ts, _ := Parse([]string{"http2.put.p50<2*rtt"}, Strategies)
	if res, _ := Check(ts, s); !strings.Contains(res[0].Error, "no round trip") {
		t.Errorf("rtt without a lab: %+v", res[0])
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ kind, expr, want string }{
		{Run, "get.ttfb.p99", "use METRIC<VALUE"},
		{Run, "get.ttfb.p99=3", "use METRIC<VALUE"},
		{Run, "got.ttfb.p99<3ms", `unknown op "got"`},
		{Run, "get.tfb.p99<3ms", `unknown metric "tfb.p99"`},
		{Run, "get.ttfb<3ms", "needs a statistic, e.g. ttfb.p99"},
		{Run, "get.count<3ms", "not a time"},
		{Run, "get<3", "name what of get"},
		{Run, "errors<3ms", "not a time"},
		{Run, "get.ttfb.p99<fast", "bad value"},
		{Run, "get.ttfb.p99<3parsecs", "bad unit"},
		{Run, "explain.connections<1", "explain.* is for explain"},
		{Explain, "get.ttfb.p99<3ms", "explain's metrics"},
		{Explain, "explain.connexions<1", "unknown metric"},
		{Explain, "explain<1", "name what of explain"},
		{Strategies, "http3.put.p50<1", `unknown op "http3"`},
		{Run, "errors < 200%", "can never fail"},
		{Run, "errors<=100%", "can never fail"},
		{Run, "errors>=0", "can never fail"},
		{Run, "get.ttfb.p99>-1ms", "can never fail"},
		{Run, "get.ttfb.p99>=0ms", "can never fail"},
		{Run, "get.reused<150%", "can never fail"},
		{Run, "get.reused<=1", "can never fail"},
		{Run, "all.agg_mb_per_s>=0", "can never fail"},
		{Explain, "errors<101%", "can never fail"},
	} {
		_, err := Parse([]string{tc.expr}, tc.kind)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.expr) {
			t.Errorf("Parse(%q, %s) = %v, want an error naming it and %q", tc.expr, tc.kind, err, tc.want)
		}
	}
}

func TestSetApply(t *testing.T) {
	t.Parallel()
	s := NewSet(Run)
	for _, e := range []string{"get.ttfb.p99<150ms", "errors<=1"} {
		if err := s.Set(e); err != nil {
			t.Fatal(err)
		}
	}
	var w bytes.Buffer
	d := runDoc()
	err := s.Apply(&w, d)
	if err == nil || err.Error() != "1 of 2 thresholds failed" || len(d.Thresholds) != 2 {
		t.Fatalf("Apply: %v, %d results", err, len(d.Thresholds))
	}
	want := "threshold get.ttfb.p99<150ms: FAIL, measured 200 ms (throughput get 1048576B)\nthreshold errors<=1: pass, measured 1\n"
	if w.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", w.String(), want)
	}
	if err := (&Set{}).Apply(&w, d); err != nil {
		t.Errorf("no threshold given: %v", err)
	}
}

func TestFailIf(t *testing.T) {
	t.Parallel()
	slower := stats.Change{Delta: 12, Lo: 8, Hi: 15, Relative: 0.12}
	noise := stats.Change{Delta: 12, Lo: -2, Hi: 20, Relative: 0.12}
	faster := stats.Change{Delta: -30, Lo: -40, Hi: -20, Relative: -0.3}
	small := stats.Change{Delta: 2, Lo: 1, Hi: 3, Relative: 0.02}
	comp := func(p50, p99 stats.Change) analysis.Comparison {
		return analysis.Comparison{A: "a", B: "b", Steps: []analysis.StepComparison{{Step: "latency get 1KiB", DeltaP50: p50, DeltaP99: p99}}}
	}
	for _, tc := range []struct {
		expr  string
		comp  analysis.Comparison
		fails bool
	}{
		{"slower", comp(slower, small), true},
		{"slower", comp(noise, small), false}, // the interval holds zero
		{"slower", comp(faster, small), false},
		{"faster", comp(faster, small), true},
		{"p50>+10%", comp(slower, small), true},
		{"p50>+15%", comp(slower, small), false},
		{"p50>10ms", comp(slower, small), true},
		{"p50>+20ms", comp(slower, small), false},
		{"p99>+10%", comp(small, slower), true},
		{"p99>+10%", comp(slower, small), false},
		{"p50<-20%", comp(faster, small), true},
		{"p50<-40%", comp(faster, small), false},
	} {
		f, err := ParseFailIf(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		var w bytes.Buffer
		err = f.Check(&w, []analysis.Comparison{tc.comp})
		if (err != nil) != tc.fails || (w.Len() > 0) != tc.fails {
			t.Errorf("%s on %+v: %v, printed %q; want failing %v", tc.expr, tc.comp.Steps[0], err, w.String(), tc.fails)
		}
	}
	for _, bad := range []string{"", "worse", "p95>+10%", "p50>-10%", "p50<+10%", "p50>+10"} {
		if _, err := ParseFailIf(bad); err == nil {
			t.Errorf("ParseFailIf(%q) accepted", bad)
		}
	}
}

func TestSetApplyNamesTargets(t *testing.T) {
	t.Parallel()
	s := NewSet(Run)
	if err := s.Set("get.count>=10"); err != nil {
		t.Fatal(err)
	}
	a, b := runDoc(), runDoc()
	a.Target.URL, b.Target.URL = "s3://a", "gs://b"
	b.Results = b.Results[2:] // no GET
	var w bytes.Buffer
	if err := s.Apply(&w, a, b); err == nil || err.Error() != "1 of 2 thresholds failed" {
		t.Errorf("Apply: %v", err)
	}
	want := "s3://a: threshold get.count>=10: pass, measured 10 (throughput get 1048576B)\ngs://b: threshold get.count>=10: FAIL (no step measured it)\n"
	if w.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", w.String(), want)
	}
}

// TestDocumentedExamples: every expression the help and docs/ci.md teach parses.
func TestDocumentedExamples(t *testing.T) {
	t.Parallel()
	for kind, exprs := range map[string][]string{
		Run: {"get.ttfb.p99<150ms", "put.total.p50<2*rtt", "errors<0.1%", "get.agg_mb_per_s>500", "get.wait.p99<=1.5*rtt",
			"all.reused>=95%", "get.ttfb.p99<3*rtt", "get.reused>=98%", "errors<1%", "get.mb_per_s.p50>10", "put.requests_per_op<=1"},
		Strategies: {"http2.put.wall_s<1s", "put.speedup>=1", "sdk-default.put.connections<=50", "get.objects_per_s>100"},
		Explain: {"explain.connections_per_object<=0.1", "explain.requests_per_object<=1", "explain.round_trips_per_object<3",
			"explain.tls_handshakes_per_object<=0.1", "explain.wall_s<10s", "errors<1"},
	} {
		if _, err := Parse(exprs, kind); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	for _, e := range []string{"slower", "faster", "p99>+10%", "p50>+5ms", "p50<-20%"} {
		if _, err := ParseFailIf(e); err != nil {
			t.Error(err)
		}
	}
}

// TestParseCanFailAtTheEdge: a threshold that fails only at the metric's
// bound (every request an error, a time of 0) is a gate, and accepted.
func TestParseCanFailAtTheEdge(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"errors<100%", "errors<1", "errors>0", "get.ttfb.p99>0ms", "get.reused<1", "get.reused>0", "get.ttfb.p99<3*rtt"} {
		if _, err := Parse([]string{expr}, Run); err != nil {
			t.Errorf("Parse(%q): %v", expr, err)
		}
	}
}

// The knee's figures are metrics of the rows that have one: a rate in /s.
func TestCheckKnee(t *testing.T) {
	t.Parallel()
	d := runDoc()
	d.Results = append(d.Results, document.Result{Workload: "mixed", Op: "head", Count: 300,
		Knee: &document.Knee{Found: true, RateOpsPerS: 195, GoodputOpsPerS: 190}})
	for _, tc := range []struct {
		expr     string
		pass     bool
		measured float64
		err      string
	}{
		{"head.knee.rate_ops_per_s>=180", true, 195, ""},
		{"head.knee.goodput_ops_per_s>=200", false, 190, ""},
		{"get.knee.rate_ops_per_s>=180", false, 0, "no step measured it"},
	} {
		ts, err := Parse([]string{tc.expr}, Run)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		res, _ := Check(ts, d)
		if r := res[0]; r.Pass != tc.pass || r.Measured != tc.measured || r.Error != tc.err || tc.err == "" && r.Unit != "/s" {
			t.Errorf("%s: %+v; want pass %v measured %g error %q in /s", tc.expr, r, tc.pass, tc.measured, tc.err)
		}
	}
}
