package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture is a fixed document built the way run builds one.
func fixture() *Document {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	step := func(workload, op string, size int64, conc int, base time.Duration, n int, failures int) Result {
		r := stats.NewRecorder()
		for i := range n {
			d := base + time.Duration(i%10)*base/10
			s := nettrace.Sample{Seq: i / conc, Start: t0, FirstByte: t0.Add(d), End: t0.Add(2 * d), Size: size, Requests: 1, Reused: i >= conc}
			s.Phases[nettrace.Wait] = d
			s.Phases[nettrace.Recv] = d
			if i < conc {
				s.Phases[nettrace.Connect], s.Phases[nettrace.TLS] = base/2, base/2
				s.FirstByte, s.End = s.FirstByte.Add(base), s.End.Add(base)
			}
			r.Add(&s)
		}
		for range failures {
			r.Add(&nettrace.Sample{Err: "boom", ErrClass: "timeout", Retries: 1})
		}
		return FromSummary(workload, op, size, conc, "pooled", time.Second, r.Summarize(size, time.Second))
	}
	return &Document{
		Schema: Schema, RunID: "20261122T120000-abcdef",
		Target:    TargetInfo{URL: "s3://objbench", Provider: "s3", Endpoint: "http://127.0.0.1:9000"},
		Lab:       &LabInfo{API: "s3", Profile: "cross-region", RTTms: 80, TLS: true},
		StartedAt: "2026-11-22T12:00:00Z", DurationS: 12.5,
		Client: ClientInfo{Version: "dev", Go: "go1.26", OS: "linux/amd64", Host: "test", CPUs: 2},
		Results: []Result{
			step("latency", "get", 1024, 1, 80*time.Millisecond, 100, 0),
			step("latency", "put", 0, 1, 90*time.Millisecond, 20, 2),
			step("throughput", "get", 32<<20, 1, 400*time.Millisecond, 10, 0),
			step("concurrency", "put", 32<<20, 5, 900*time.Millisecond, 10, 0),
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n%s", name, got)
	}
}

func TestWriteTextGolden(t *testing.T) {
	var buf bytes.Buffer
	d := fixture()
	if err := WriteText(&buf, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "run.txt.golden", buf.Bytes())
	d.Interrupted = true
	buf.Reset()
	_ = WriteText(&buf, d)
	if !strings.Contains(buf.String(), "interrupted: partial results") {
		t.Error("interrupted run not marked")
	}
}

func TestWriteCSVGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "run.csv.golden", buf.Bytes())
}

// TestJSONContract checks every key DESIGN.md's objbench/v1 contract names.
func TestJSONContract(t *testing.T) {
	d := fixture()
	d.Results[0].TTFBms.P50 = math.NaN() // must not break the encoder
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
	if sub(res, "ttfb_ms")["p50"] != 0.0 {
		t.Errorf("NaN not sanitised: %v", sub(res, "ttfb_ms")["p50"])
	}

	d.Lab = nil
	buf.Reset()
	_ = WriteJSON(&buf, d)
	if strings.Contains(buf.String(), `"lab"`) {
		t.Error("lab block present for a real target")
	}
}

func TestFromSummaryFirstLater(t *testing.T) {
	r := fixture().Results[0]
	if r.FirstRequest.Count != 1 || r.FirstRequest.ReusedFraction != 0 || r.LaterRequests.ReusedFraction != 1 {
		t.Errorf("first %+v later %+v", r.FirstRequest, r.LaterRequests)
	}
	if r.FirstRequest.TTFBms.P50 <= r.LaterRequests.TTFBms.P50 {
		t.Errorf("first ttfb %v not above later %v", r.FirstRequest.TTFBms.P50, r.LaterRequests.TTFBms.P50)
	}
	if r.RequestsPerOp != 1 || r.Count != 100 {
		t.Errorf("requests/op %v count %d", r.RequestsPerOp, r.Count)
	}
	if p := fixture().Results[1]; p.Errors != 2 || p.ErrorsByClass["timeout"] != 2 || p.Retries != 2 {
		t.Errorf("errors %d %v retries %d", p.Errors, p.ErrorsByClass, p.Retries)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 1024: "1KiB", 256 << 10: "256KiB", 32 << 20: "32MiB", 1500: "1500B", 1 << 30: "1GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
