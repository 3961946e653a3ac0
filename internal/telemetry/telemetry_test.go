package telemetry

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/probe"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// sample is a GET on a new TLS connection: dns 1, connect 10, tls 20,
// send 1, wait 30, recv 5 ms.
func sample(seq int, reused bool) nettrace.Sample {
	ms := time.Millisecond
	s := nettrace.Sample{Op: "get", Seq: seq, Reused: reused, Start: t0, Requests: 1, Status: 200, Proto: "HTTP/1.1", TLSVersion: "TLS1.3"}
	if !reused {
		s.Phases[nettrace.DNS], s.Phases[nettrace.Connect], s.Phases[nettrace.TLS] = ms, 10*ms, 20*ms
	}
	s.Phases[nettrace.Send], s.Phases[nettrace.Wait], s.Phases[nettrace.Recv] = ms, 30*ms, 5*ms
	var before time.Duration
	for _, p := range []nettrace.Phase{nettrace.DNS, nettrace.Connect, nettrace.TLS, nettrace.Send, nettrace.Wait} {
		before += s.Phases[p]
	}
	s.FirstByte = t0.Add(before)
	s.End = s.FirstByte.Add(s.Phases[nettrace.Recv])
	return s
}

func TestPhaseSpans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		s      nettrace.Sample
		want   string
		starts time.Duration // of the first span, from t0
	}{
		{"new connection", sample(0, false), "dns connect tls send wait recv", 0},
		{"reused", sample(1, true), "send wait recv", 0},
	}
	for _, tt := range tests {
		spans := phaseSpans(&tt.s)
		var names []string
		for i, p := range spans {
			names = append(names, p.name)
			if i > 0 && !p.start.Equal(spans[i-1].end) {
				t.Errorf("%s: %s starts at %v, not where %s ends (%v)", tt.name, p.name, p.start, spans[i-1].name, spans[i-1].end)
			}
		}
		if got := strings.Join(names, " "); got != tt.want {
			t.Errorf("%s: spans %q, want %q", tt.name, got, tt.want)
		}
		if !spans[0].start.Equal(t0.Add(tt.starts)) || !spans[len(spans)-1].end.Equal(tt.s.End) {
			t.Errorf("%s: spans cover %v..%v, sample %v..%v", tt.name, spans[0].start, spans[len(spans)-1].end, tt.s.Start, tt.s.End)
		}
	}
}

func TestTracesURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, err string }{
		{"http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces", ""},
		{"http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces", ""},
		{"https://collector:4318/custom/traces", "https://collector:4318/custom/traces", ""},
		{"127.0.0.1:4318", "", "http://"},
		{"grpc://x:4317", "", "http://"},
		{"grpc://alice:S3CR3T@x:4317", "", "alice:xxxxx@x"}, // the password is not repeated
	} {
		got, err := tracesURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "S3CR3T") {
				t.Errorf("%q: %v", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %q %v, want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestRoundSpans: the span tree and attributes of a round, from an
// in-memory exporter.
func TestRoundSpans(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := trace.NewTracerProvider(trace.WithSyncer(exp))
	tr := &Tracer{tp: tp, tr: tp.Tracer("test"), Labels: map[string]string{"fn": "us-central1"}}
	tg := &probe.Target{Info: document.TargetInfo{URL: "s3://b", Provider: "s3", Region: "us-east-1"}, PeerName: "b.s3.us-east-1.amazonaws.com", Strategy: "pooled"}
	failed := sample(2, true)
	failed.Err, failed.ErrClass = "connection reset", "reset"
	r := &probe.Round{Target: tg, Number: 1, Start: t0, Wall: 200 * time.Millisecond, Samples: []nettrace.Sample{sample(0, false), sample(1, true), failed}, Failed: 1}
	tr.Round(context.Background(), r)
	spans := exp.GetSpans()
	count := map[string]int{}
	var root tracetest.SpanStub
	for _, s := range spans {
		count[s.Name]++
		if s.Name == "objbench probe" {
			root = s
		}
	}
	if count["objbench probe"] != 1 || count["GET"] != 3 || count["tls"] != 1 || count["dns"] != 1 || count["wait"] != 3 {
		t.Errorf("spans %v", count)
	}
	for _, s := range spans {
		if s.Name != "GET" {
			continue
		}
		if s.Parent.SpanID() != root.SpanContext.SpanID() {
			t.Error("a GET span is not a child of the round")
		}
		attrs := map[string]string{}
		for _, a := range s.Attributes {
			attrs[string(a.Key)] = a.Value.String()
		}
		for k, want := range map[string]string{"net.peer.name": "b.s3.us-east-1.amazonaws.com", "tls.protocol.version": "1.3",
			"cloud.region": "us-east-1", "objbench.label.fn": "us-central1", "network.protocol.version": "1.1"} {
			if attrs[k] != want {
				t.Errorf("%s = %q, want %q", k, attrs[k], want)
			}
		}
		if attrs["seq"] == "2" && (attrs["error.type"] != "reset" || s.Status.Code.String() != "Error") {
			t.Errorf("failed request: %v %v", attrs["error.type"], s.Status)
		}
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	s0, s1 := sample(0, false), sample(1, true)
	bad := sample(2, true)
	bad.Err, bad.ErrClass = "timeout", "timeout"
	for _, s := range []nettrace.Sample{s0, s1, bad} {
		m.Observe("s3://b", "pooled", &s)
	}
	m.Round("s3://b", 1)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`objbench_ttfb_seconds_count{op="get",reused="false",strategy="pooled",target="s3://b"} 1`,
		`objbench_phase_seconds_sum{op="get",phase="tls",reused="false",strategy="pooled",target="s3://b"} 0.02`,
		`objbench_errors_total{class="timeout",op="get",strategy="pooled",target="s3://b"} 1`,
		`objbench_requests_total{op="get",result="ok",strategy="pooled",target="s3://b"} 2`,
		`objbench_probe_rounds_total{result="error",target="s3://b"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
