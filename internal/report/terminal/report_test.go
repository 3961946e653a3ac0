package terminal

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report/export"
	"github.com/objbench/objbench/internal/report/reporttest"
	"github.com/objbench/objbench/internal/stats"
)

func TestWriteTextGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	d := reporttest.Fixture()
	analysis.Annotate(d, analysis.DefaultPrices())
	if len(d.Findings) == 0 || d.Cost == nil {
		t.Fatalf("fixture annotated with no findings (%v) or no cost", d.Findings)
	}
	if err := WriteText(&buf, d); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "run.txt.golden", buf.Bytes())
	buf.Reset()
	if err := WriteDetail(&buf, d); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "run-detail.txt.golden", buf.Bytes())
	d.Interrupted = true
	buf.Reset()
	_ = WriteText(&buf, d)
	if !strings.Contains(buf.String(), "interrupted: partial results") {
		t.Error("interrupted run not marked")
	}
}

// TestJSONContract checks every key the objbench/v1 contract in
// docs/design.md#the-json-result-contract names.
func TestJSONContract(t *testing.T) {
	t.Parallel()
	d := reporttest.Fixture()
	// None of these may break the encoder or reach the output.
	d.Results[0].TTFBms.P50 = math.NaN()
	d.Results[0].PhasesMs["wait"] = document.PhaseDist{P50: math.Inf(1), P99: math.NaN()}
	d.Results[0].FirstRequest.TotalMs.Mean = math.Inf(-1)
	d.Results[0].LaterRequests.PhasesMs["dns"] = document.PhaseDist{P99: math.NaN()}
	d.Results[0].MBps.P99 = math.Inf(1)
	d.Lab.JitterMs = math.NaN()
	d.DurationS = math.Inf(1)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, d); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	has := func(obj map[string]any, path string, keys ...string) {
		t.Helper()
		for _, k := range keys {
			if _, ok := obj[k]; !ok {
				t.Errorf("%s lacks %q", path, k)
			}
		}
	}
	sub := func(obj map[string]any, k string) map[string]any {
		v, _ := obj[k].(map[string]any)
		if v == nil {
			t.Fatalf("%q is not an object", k)
		}
		return v
	}
	has(m, "", "schema", "run_id", "target", "lab", "started_at", "duration_s", "client", "results")
	if m["schema"] != "objbench/v1" {
		t.Errorf("schema %v", m["schema"])
	}
	has(sub(m, "target"), "target", "url", "provider", "endpoint")
	has(sub(m, "lab"), "lab", "api", "profile", "rtt_ms", "tls")
	has(sub(m, "client"), "client", "objbench_version", "go", "os", "host")
	res := m["results"].([]any)[0].(map[string]any)
	has(res, "result", "workload", "op", "size_bytes", "concurrency", "strategy", "count", "errors",
		"ttfb_ms", "total_ms", "mb_per_s", "aggregate_mb_per_s", "phases_ms", "reused_fraction", "first_request", "later_requests")
	dists := []string{"min", "p50", "p90", "p99", "p999", "max", "mean", "stddev"}
	has(sub(res, "ttfb_ms"), "ttfb_ms", dists...)
	has(sub(res, "total_ms"), "total_ms", dists...)
	has(sub(res, "mb_per_s"), "mb_per_s", "p50", "p90", "p99")
	phases := sub(res, "phases_ms")
	for _, p := range []string{"dns", "connect", "tls", "send", "wait100", "wait", "recv"} {
		has(sub(phases, p), p, "p50", "p99")
	}
	for _, g := range []string{"first_request", "later_requests"} {
		grp := sub(res, g)
		has(grp, g, "ttfb_ms", "reused_fraction")
		has(sub(grp, "ttfb_ms"), g+".ttfb_ms", "p50")
	}
	for what, v := range map[string]any{
		"ttfb_ms.p50":          sub(res, "ttfb_ms")["p50"],
		"phases_ms.wait.p50":   sub(phases, "wait")["p50"],
		"first total_ms.mean":  sub(sub(res, "first_request"), "total_ms")["mean"],
		"later phases dns.p99": sub(sub(sub(res, "later_requests"), "phases_ms"), "dns")["p99"],
		"mb_per_s.p99":         sub(res, "mb_per_s")["p99"],
		"duration_s":           m["duration_s"],
	} {
		if v != 0.0 {
			t.Errorf("%s = %v, want NaN/Inf sanitised to 0", what, v)
		}
	}
	if !math.IsNaN(d.Results[0].TTFBms.P50) || !math.IsInf(d.Results[0].PhasesMs["wait"].P50, 1) {
		t.Error("WriteJSON modified its document")
	}
	for _, g := range []string{"first_request", "later_requests"} {
		has(sub(sub(res, g), "phases_ms"), g+".phases_ms", "dns", "connect", "tls", "send", "wait100", "wait", "recv")
	}

	d.Lab = nil
	buf.Reset()
	_ = WriteJSON(&buf, d)
	if strings.Contains(buf.String(), `"lab"`) {
		t.Error("lab block present for a real target")
	}

	// A run with no step still has a results array.
	buf.Reset()
	if err := WriteJSON(&buf, &document.Document{Envelope: document.Envelope{Schema: document.Schema}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"results": []`) {
		t.Errorf("empty results not an array:\n%s", buf.String())
	}
}

// TestJSONStable: the same document always encodes to the same bytes
// (maps such as phases_ms are written with sorted keys).
func TestJSONStable(t *testing.T) {
	t.Parallel()
	var a, b bytes.Buffer
	if err := WriteJSON(&a, reporttest.Fixture()); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b.Reset()
		if err := WriteJSON(&b, reporttest.Fixture()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("WriteJSON output differs between runs")
		}
	}
	if !strings.HasPrefix(a.String(), "{\n  \"schema\": \"objbench/v1\",\n  \"run_id\"") {
		t.Errorf("not indented in contract order:\n%.80s", a.String())
	}
}

// TestWriteDetailUncut: however many steps, each detail table holds every
// step of its workload as a row (never cut into fragments), mixed
// strategies are named in the rows, and every number of a step is there.
func TestWriteDetailUncut(t *testing.T) {
	t.Parallel()
	d := reporttest.Fixture()
	base := d.Results[0]
	d.Results = nil
	for i := range 20 {
		r := base
		r.SizeBytes = int64(1<<10) << i
		r.Strategy = []string{"fresh", "pooled"}[i%2]
		d.Results = append(d.Results, r)
	}
	var buf bytes.Buffer
	if err := WriteDetail(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	tables := strings.Split(out, "\n\n")
	titles := 0
	for _, tb := range tables[1:] {
		lines := strings.Split(strings.TrimRight(tb, "\n"), "\n")
		if !strings.HasPrefix(lines[0], "latency: ") {
			continue
		}
		titles++
		want := 20
		if strings.HasPrefix(lines[0], "latency: phases") {
			want = 40 // first and later
		}
		if got := len(lines) - 1; got != want {
			t.Errorf("table %q has %d rows, want %d:\n%s", lines[0], got, want, tb)
		}
	}
	if titles != 5 {
		t.Errorf("%d latency tables, want 5 (ttfb, total, throughput, requests, phases):\n%s", titles, out)
	}
	for _, h := range []string{"get 1KiB fresh", "get 128KiB pooled", "get 512MiB pooled first", "connections: fresh, pooled (per column)", "p99.9", "stddev", "silent retries"} {
		if !strings.Contains(out, h) {
			t.Errorf("output lacks %q", h)
		}
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	for name, write := range map[string]func(io.Writer, *document.Document) error{"text": WriteText, "csv": export.WriteCSV, "json": WriteJSON} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if err := write(&failWriter{n: 100}, reporttest.Fixture()); err == nil || !strings.Contains(err.Error(), "disk full") {
				t.Errorf("error %v, want disk full", err)
			}
		})
	}
}

func TestFromSummaryFields(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := stats.NewRecorder()
	for i := range 4 {
		s := nettrace.Sample{Seq: i, Start: t0, FirstByte: t0.Add(10 * time.Millisecond), End: t0.Add(20 * time.Millisecond),
			Size: 2_000_000, Requests: 2, Retries: 1, Reused: i > 0}
		for p := range s.Phases {
			s.Phases[p] = time.Duration(p+1) * time.Millisecond
		}
		rec.Add(&s)
	}
	r := document.FromSummary("throughput", "put", 2_000_000, 1, "pooled", 2*time.Second, rec.Summarize(2_000_000, 2*time.Second))
	if r.Workload != "throughput" || r.Op != "put" || r.SizeBytes != 2_000_000 || r.Concurrency != 1 || r.Strategy != "pooled" {
		t.Errorf("identity %+v", r)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"count", float64(r.Count), 4}, {"requests/op", r.RequestsPerOp, 2}, {"retries", float64(r.Retries), 4},
		{"wall", r.WallS, 2}, {"ttfb p50", r.TTFBms.P50, 10}, {"total p99", r.TotalMs.P99, 20},
		{"mb/s p50", r.MBps.P50, 100}, {"aggregate", r.AggregateMBps, 4}, {"reused", r.ReusedFraction, 0.75},
		{"first reused", r.FirstRequest.ReusedFraction, 0}, {"later reused", r.LaterRequests.ReusedFraction, 1},
		{"first count", float64(r.FirstRequest.Count), 1}, {"later count", float64(r.LaterRequests.Count), 3},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 0.01*c.want+1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for i, ph := range []string{"dns", "connect", "tls", "send", "wait100", "wait", "recv"} {
		want := float64(i + 1)
		for where, m := range map[string]map[string]document.PhaseDist{"all": r.PhasesMs, "first": r.FirstRequest.PhasesMs, "later": r.LaterRequests.PhasesMs} {
			if got := m[ph].P50; math.Abs(got-want) > 0.01*want {
				t.Errorf("%s %s p50 = %v, want %v", where, ph, got, want)
			}
		}
	}
	if r.ErrorsByClass != nil {
		t.Errorf("errors by class %v with no error", r.ErrorsByClass)
	}
}

func TestFromSummaryFirstLater(t *testing.T) {
	t.Parallel()
	r := reporttest.Fixture().Results[0]
	if r.FirstRequest.Count != 1 || r.FirstRequest.ReusedFraction != 0 || r.LaterRequests.ReusedFraction != 1 {
		t.Errorf("first %+v later %+v", r.FirstRequest, r.LaterRequests)
	}
	if r.FirstRequest.TTFBms.P50 <= r.LaterRequests.TTFBms.P50 {
		t.Errorf("first ttfb %v not above later %v", r.FirstRequest.TTFBms.P50, r.LaterRequests.TTFBms.P50)
	}
	if r.RequestsPerOp != 1 || r.Count != 100 {
		t.Errorf("requests/op %v count %d", r.RequestsPerOp, r.Count)
	}
	if p := reporttest.Fixture().Results[1]; p.Errors != 2 || p.ErrorsByClass["timeout"] != 2 || p.Retries != 2 {
		t.Errorf("errors %d %v retries %d", p.Errors, p.ErrorsByClass, p.Retries)
	}
}
