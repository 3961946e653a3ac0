package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/twin"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

// startLab runs `objbench args...` (a foreground lab) until the test ends,
// and returns its output once it says how to stop it.
func startLab(t *testing.T, args ...string) (output func() string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- Main(ctx, args, &out, &errb) }()
	stopped := false
	stop = func() int {
		if stopped {
			return 0
		}
		stopped = true
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, errb.String())
			}
			return code
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not stop on cancel", strings.Join(args, " "))
		}
		return -1
	}
	t.Cleanup(func() { stop() })
	// Generous: without an upstream it starts Azurite, a Node.js process.
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(out.String(), "Press Ctrl-C") {
		select {
		case code := <-done:
			t.Fatalf("%s: exit %d before serving:\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start:\n%s%s", strings.Join(args, " "), out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return out.String, stop
}

// TestLabUpstreamForeground runs `objbench lab --upstream` in front of the
// test MinIO: its output names the endpoint, the upstream and its bucket;
// an S3 client with MinIO's own keys writes through it what MinIO then
// holds, across the 10 ms link.
func TestLabUpstreamForeground(t *testing.T) {
	ep := minio(t)
	bucket, direct := createBucket(t, ep)
	output, stop := startLab(t, "lab", "--upstream", ep+"/"+bucket, "--rtt", "10ms")
	out := output()
	m := regexp.MustCompile(`(?m)^s3 endpoint (http://127\.0\.0\.1:\d+), in front of (\S+): bucket (\S+), with the upstream's own credentials$`).FindStringSubmatch(out)
	if m == nil || m[2] != ep || m[3] != bucket || !strings.Contains(out, "round trip 10ms") {
		t.Fatalf("lab --upstream output, want its endpoint, the upstream %s, bucket %s and the round trip:\n%s", ep, bucket, out)
	}
	if strings.Contains(out, os.Getenv("AWS_SECRET_ACCESS_KEY")) {
		t.Error("lab --upstream printed the upstream's secret key")
	}
	ctx := context.Background()
	viaLab, err := providers.Open(ctx, storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: m[1], Region: "us-east-1", HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	defer viaLab.Close()
	const key = "upstream-foreground/obj"
	start := time.Now()
	if err := viaLab.Put(ctx, key, strings.NewReader("hello"), 5); err != nil {
		t.Fatalf("PUT through lab --upstream: %v", err)
	}
	defer func() { _ = direct.Delete(ctx, key) }()
	// A new connection's handshake and the request: two round trips.
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Errorf("a PUT on a new connection across a 10 ms link took %s", el)
	}
	var got bytes.Buffer
	if _, err := direct.Get(ctx, key, &got); err != nil || got.String() != "hello" {
		t.Errorf("MinIO holds %q (%v), want what was written through the lab", got.String(), err)
	}
	stop()
	if !strings.Contains(output(), "objbench lab: stopping") {
		t.Errorf("no stop line:\n%s", output())
	}
}

// TestLabProfileForeground runs `objbench lab --profile FILE`, the twin of
// a measured bucket (TLS, a 10 ms round trip, GETs served in 30 ms): its
// output names the measured profile and the CA to trust, and a warm GET
// through it waits a round trip and the GET's service time.
func TestLabProfileForeground(t *testing.T) {
	pct := make([]float64, 101)
	for i := range pct {
		pct[i] = 30
	}
	m := &twin.Measured{Schema: twin.MeasuredSchema, MeasuredAt: time.Now().UTC().Round(time.Second),
		Target:  twin.MeasuredTarget{URL: "s3://somebucket", API: "s3"},
		Network: twin.MeasuredNetwork{RTTms: 10, TLS: true, TLSVersion: "1.3", HTTP2: true},
		Service: []twin.ServiceClass{{Op: "get", SizeBytes: 1024, Count: 40, P50ms: 30, P99ms: 30, PercentilesMs: pct}}}
	file := filepath.Join(t.TempDir(), "twin.json")
	if err := m.Save(file); err != nil {
		t.Fatal(err)
	}
	output, stop := startLab(t, "lab", "--profile", file)
	out := output()
	ca := regexp.MustCompile(`(?m)^TLS: trust the lab's CA certificate (\S+)$`).FindStringSubmatch(out)
	ep := regexp.MustCompile(`(?m)^s3\s+(https://127\.0\.0\.1:\d+)\s+objbench`).FindStringSubmatch(out)
	if ca == nil || ep == nil || !strings.Contains(out, "profile measured: round trip 10ms") {
		t.Fatalf("lab --profile output, want the measured profile's link, an https s3 endpoint and the CA:\n%s", out)
	}
	pem, err := os.ReadFile(ca[1])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	url := ep[1] + "/objbench/twin.txt"
	req, _ := http.NewRequest("PUT", url, strings.NewReader("hello"))
	if resp, err := client.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT through the twin: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	start := time.Now()
	resp, err := client.Get(url) // on the PUT's connection
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	el := time.Since(start)
	if string(body) != "hello" {
		t.Errorf("GET returned %q", body)
	}
	// 10 ms + 30 ms, less the twin's own time per exchange taken out of
	// the service time (2-3 ms here); a loaded machine only adds.
	if el < 35*time.Millisecond {
		t.Errorf("a warm GET through the twin took %s, want the round trip and the 30 ms service time", el)
	}
	t.Logf("warm GET through the twin: %s", el)
	stop()
}
