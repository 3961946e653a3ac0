package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/terminal"
)

func decodeFull(t *testing.T, s string) *document.Document {
	t.Helper()
	var d document.Document
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("output is not JSON: %v\n%.300s", err, s)
	}
	return &d
}

func findingByID(d *document.Document, id string) *document.Finding {
	for i := range d.Findings {
		if d.Findings[i].ID == id {
			return &d.Findings[i]
		}
	}
	return nil
}

// TestRunSummaryAndDetail: the default text is the summary (one table per
// workload, cold vs warm, findings, cost); --detail adds every quantile.
func TestRunSummaryAndDetail(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), append([]string{"run", "--no-save"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"latency ", "throughput ", "concurrency ", "ttfb p50", "cold vs warm", "cost at s3 list prices"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "p99.9") {
		t.Errorf("summary prints the detail tables:\n%s", out)
	}
	code, out, errOut = runCLI(t, context.Background(), append([]string{"run", "--no-save", "--detail", "--workload", "latency"}, quick...)...)
	if code != 0 {
		t.Fatalf("--detail: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"latency: time to first byte (ms)", "p99.9", "stddev", "latency: phases, p50 ms", "get 1KiB first", "silent retries"} {
		if !strings.Contains(out, want) {
			t.Errorf("detail lacks %q:\n%s", want, out)
		}
	}
}

// TestRunDefaultOneScreen: the README's first command (the quick suite on
// the lab) prints one screen with at least three findings, each true of
// the run's own numbers.
func TestRunDefaultOneScreen(t *testing.T) {
	if raceDetector {
		t.Skip("the full quick suite is slow under -race; scripts/test runs it in its no-race step")
	}
	code, out, errOut := runCLI(t, context.Background(), "run", "--no-save", "-q", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d := decodeFull(t, out)
	var buf bytes.Buffer
	if err := terminal.WriteSummary(&buf, d); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n > 72 {
		t.Errorf("summary is %d lines, want about 60:\n%s", n, buf.String())
	}
	if len(d.Findings) < 3 {
		t.Errorf("%d findings, want at least 3:\n%s", len(d.Findings), buf.String())
	}
	for _, f := range d.Findings {
		switch {
		case f.ID == "cold-vs-warm":
			if f.Evidence["first_ttfb_ms"] < 1.5*f.Evidence["later_ttfb_ms"] {
				t.Errorf("cold-vs-warm not true: %v", f.Evidence)
			}
		case f.ID == "requests-per-object":
			found := false
			for _, r := range d.Results {
				found = found || r.Op == "put" && float64(r.SizeBytes) == f.Evidence["size_bytes"] && math.Abs(r.RequestsPerOp-f.Evidence["requests_per_object"]) < 0.01
			}
			if !found {
				t.Errorf("requests-per-object not in the results: %v", f.Evidence)
			}
		case strings.HasPrefix(f.ID, "concurrency-plateau-"):
			op := strings.TrimPrefix(f.ID, "concurrency-plateau-")
			for _, r := range d.Results {
				if r.Workload == "concurrency" && r.Op == op && float64(r.Concurrency) > f.Evidence["concurrency"] && r.AggregateMBps >= 1.15*f.Evidence["aggregate_mb_per_s"] {
					t.Errorf("%s: c=%d reaches %.0f MB/s, above the plateau %v", f.ID, r.Concurrency, r.AggregateMBps, f.Evidence)
				}
			}
		}
	}
	if d.Cost == nil || d.Cost.Provider != "s3" || d.Cost.TotalUSD <= 0 {
		t.Errorf("cost %+v", d.Cost)
	}
}

// TestLabColdWarmRoundTrips: over a 40 ms link with TLS, a worker's first
// GET pays two round trips more than a warm one (TCP, TLS 1.3).
func TestLabColdWarmRoundTrips(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test")
	}
	code, out, errOut := runCLI(t, context.Background(), "run", "lab", "--rtt", "40ms", "--tls", "--workload", "latency",
		"--gets", "40", "--latency-concurrency", "4", "--op-sizes", "0", "--op-count", "1", "--no-save", "-q", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d := decodeFull(t, out)
	f := findingByID(d, "cold-vs-warm")
	if f == nil {
		t.Fatalf("no cold-vs-warm finding in %+v", d.Findings)
	}
	t.Logf("%s", f.Text)
	if rt := f.Evidence["round_trips"]; math.Abs(rt-2) > 0.3 {
		t.Errorf("cold request costs %.2f round trips, want 2 ± 0.3: %s", rt, f.Text)
	}
	if !strings.Contains(f.Text, "connect") || !strings.Contains(f.Text, "tls") {
		t.Errorf("phases not named: %s", f.Text)
	}
}

// TestLabSilentRetries: with half the requests reset, Go's transport
// re-sends GETs on reused connections; the run counts them, and the errors
// finding sets the injected rate, the errors seen and the retries side by side.
func TestLabSilentRetries(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "run", "--fault", "reset=50%", "--workload", "latency",
		"--gets", "200", "--op-sizes", "0", "--op-count", "1", "--no-save", "-q", "--json")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d := decodeFull(t, out)
	var silent int64
	for _, r := range d.Results {
		silent += r.SilentRetries
	}
	if silent == 0 {
		t.Errorf("no silent retries counted with reset=50%%: %+v", d.Results)
	}
	f := findingByID(d, "errors")
	if f == nil || f.Evidence["injected_reset_rate"] != 0.5 || f.Evidence["silent_retries"] != float64(silent) ||
		!strings.Contains(f.Text, "the lab reset 50% of requests") || !strings.Contains(f.Text, "retried silently") {
		t.Errorf("errors finding %+v", f)
	}
}
