package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// jaeger returns the OTLP endpoint and query URL of the Jaeger that
// scripts/services starts, or skips (fails on CI).
func jaeger(t *testing.T) (otlp, query string) {
	t.Helper()
	otlp, query = os.Getenv("OBJBENCH_TEST_OTLP_ENDPOINT"), os.Getenv("OBJBENCH_TEST_JAEGER_QUERY")
	if otlp == "" || query == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("OBJBENCH_TEST_OTLP_ENDPOINT not set on CI: run the tests through scripts/test")
		}
		t.Skip("Jaeger not running: start it with scripts/services up")
	}
	return otlp, query
}

type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) tag(k string) (any, bool) {
	for _, t := range s.Tags {
		if t.Key == k {
			return t.Value, true
		}
	}
	return nil, false
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// findTrace polls Jaeger for the trace whose spans carry the label.
func findTrace(t *testing.T, query, label string, wantSpans int) []jaegerSpan {
	t.Helper()
	tags, _ := json.Marshal(map[string]string{"objbench.label.test": label})
	u := query + "/api/traces?service=objbench&limit=5&lookback=1h&tags=" + url.QueryEscape(string(tags))
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(u)
		if err == nil {
			var body struct {
				Data []struct {
					Spans []jaegerSpan `json:"spans"`
				} `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err == nil && len(body.Data) == 1 && len(body.Data[0].Spans) >= wantSpans {
				return body.Data[0].Spans
			}
			last = fmt.Sprintf("%d traces, %v", len(body.Data), err)
		} else {
			last = err.Error()
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("no trace labelled %s in Jaeger: %s", label, last)
	return nil
}

func randomLabel() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// checkProbeTrace checks the trace's shape: a round span,
// a GET span per request with the connection facts, and under the first
// GET a span per phase of a new connection (wantFirst).
func checkProbeTrace(t *testing.T, spans []jaegerSpan, count int, wantFirst []string, tlsVersion string) {
	t.Helper()
	byID := map[string]jaegerSpan{}
	children := map[string][]string{}
	var root jaegerSpan
	var gets []jaegerSpan
	for _, s := range spans {
		byID[s.SpanID] = s
		children[s.parent()] = append(children[s.parent()], s.OperationName)
		switch s.OperationName {
		case "objbench probe":
			root = s
		case "GET":
			gets = append(gets, s)
		}
	}
	if root.SpanID == "" || len(gets) != count {
		t.Fatalf("trace has %d GET spans and root %q, want %d", len(gets), root.OperationName, count)
	}
	for _, g := range gets {
		if g.parent() != root.SpanID {
			t.Errorf("GET span %s is not a child of the round", g.SpanID)
		}
		for _, k := range []string{"seq", "reused", "was_idle", "idle_time_ms", "net.peer.name", "server.address", "http.protocol",
			"objbench.target", "cloud.region", "http.request.method"} {
			if _, ok := g.tag(k); !ok {
				t.Errorf("GET span lacks %q", k)
			}
		}
		if v, _ := g.tag("cloud.region"); v != "us-east-1" {
			t.Errorf("cloud.region %v, want us-east-1 (the lab's, or AWS_REGION's)", v)
		}
		if tlsVersion != "" {
			v, _ := g.tag("tls.protocol.version")
			raw, _ := g.tag("tls.version")
			if v != tlsVersion || raw != "TLS"+tlsVersion {
				t.Errorf("tls.version %v, tls.protocol.version %v, want TLS%s", raw, v, tlsVersion)
			}
		}
		seq, _ := g.tag("seq")
		reused, _ := g.tag("reused")
		got := strings.Join(children[g.SpanID], ",")
		if fmt.Sprint(seq) == "0" {
			if reused != false {
				t.Errorf("first request reused = %v", reused)
			}
			for _, p := range wantFirst {
				if !strings.Contains(","+got+",", ","+p+",") {
					t.Errorf("first GET's phase spans %q lack %q", got, p)
				}
			}
		} else {
			if reused != true {
				t.Errorf("request %v reused = %v", seq, reused)
			}
			for _, p := range []string{"dns", "connect", "tls"} {
				if strings.Contains(","+got+",", ","+p+",") {
					t.Errorf("request %v on a reused connection has a %s span", seq, p)
				}
			}
		}
	}
}

// TestProbeTraceInJaeger exports probes over OTLP to a real Jaeger and
// reads the traces back from its query API: over TLS on the lab (connect
// and tls spans), and to MinIO by name (a dns span).
func TestProbeTraceInJaeger(t *testing.T) {
	otlp, query := jaeger(t)
	endpoint := minio(t) // sets the environment: not parallel
	ctx := context.Background()

	label := randomLabel()
	code, _, errOut := runCLI(t, ctx, "probe", "lab:cross-region", "--rtt", "5ms", "--tls", "--count", "5", "--otlp", otlp,
		"--label", "test="+label, "--no-save")
	if code != 0 {
		t.Fatalf("probe on the lab: exit %d %s", code, errOut)
	}
	spans := findTrace(t, query, label, 1+5+5*3)
	checkProbeTrace(t, spans, 5, []string{"connect", "tls", "send", "wait", "recv"}, "1.3")

	label = randomLabel()
	u, _ := url.Parse(endpoint)
	byName := "http://localhost:" + u.Port()
	bucket := randomBucket(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp) // the standard variable instead of --otlp
	code, _, errOut = runCLI(t, ctx, "probe", "s3://"+bucket, "--endpoint", byName, "--create-bucket", "--prepare",
		"--count", "4", "--label", "test="+label, "--no-save")
	if code != 0 {
		t.Fatalf("probe on MinIO: exit %d %s", code, errOut)
	}
	spans = findTrace(t, query, label, 1+4+4*3)
	checkProbeTrace(t, spans, 4, []string{"dns", "connect", "send", "wait", "recv"}, "")
	for _, s := range spans {
		if s.OperationName == "GET" {
			if v, _ := s.tag("net.peer.name"); v != "localhost" {
				t.Errorf("net.peer.name %v, want localhost", v)
			}
			break
		}
	}
}

// TestProbeOTLPHoldsNoSecret is issue 28's redaction where objbench's own
// command line reaches an OTLP export: a probe whose --otlp endpoint
// carries a user and password exports its trace, and neither the trace as
// Jaeger stored it (spans and process tags) nor the terminal repeats the
// password; a --otlp that is refused does not print it either.
func TestProbeOTLPHoldsNoSecret(t *testing.T) {
	otlp, query := jaeger(t)
	t.Parallel()
	ctx := context.Background()
	u, err := url.Parse(otlp)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("alice", "S3CR3T")
	label := randomLabel()
	code, out, errOut := runCLI(t, ctx, "probe", "lab", "--count", "3", "--otlp", u.String(), "--label", "test="+label, "--no-save")
	if code != 0 {
		t.Fatalf("probe: exit %d: %s", code, errOut)
	}
	findTrace(t, query, label, 1+3)
	tags, _ := json.Marshal(map[string]string{"objbench.label.test": label})
	resp, err := http.Get(query + "/api/traces?service=objbench&limit=5&lookback=1h&tags=" + url.QueryEscape(string(tags)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var stored bytes.Buffer
	if _, err := stored.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	for where, s := range map[string]string{"Jaeger's trace": stored.String(), "stdout": out, "stderr": errOut} {
		if strings.Contains(s, "S3CR3T") {
			t.Errorf("%s holds the OTLP endpoint's password", where)
		}
	}
	u.Scheme = "grpc"
	code, _, errOut = runCLI(t, ctx, "probe", "lab", "--count", "1", "--otlp", u.String(), "--no-save")
	if code != 2 || strings.Contains(errOut, "S3CR3T") {
		t.Errorf("a refused --otlp: exit %d, want 2, without the password: %s", code, errOut)
	}
}
