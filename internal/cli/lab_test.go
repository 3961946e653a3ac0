package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLabServesAnyClient runs `objbench lab` in the foreground, uses the
// printed S3 endpoint with a plain HTTP client, and stops it with a cancel.
func TestLabServesAnyClient(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"lab", "--rtt", "10ms"}, &out, &errb) }()
	// Generous: it starts Azurite, a Node.js process, on a busy machine.
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(out.String(), "Press Ctrl-C") {
		if time.Now().After(deadline) {
			t.Fatalf("lab did not start: %s %s", out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	m := regexp.MustCompile(`(?m)^s3\s+(http://127\.0\.0\.1:\d+)\s+objbench`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no s3 endpoint in:\n%s", out.String())
	}
	for _, want := range []string{"gcs", "aws --endpoint-url", "curl", "round trip 10ms", "access key objbench-lab"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lab output lacks %q", want)
		}
	}
	url := m[1] + "/objbench/hello.txt"
	req, _ := http.NewRequest("PUT", url, strings.NewReader("hello"))
	start := time.Now()
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT through the lab: %v %v", resp, err)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello" {
		t.Errorf("GET returned %q", body)
	}
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Errorf("two exchanges over a 10ms link took %v", el)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lab did not stop on cancel")
	}
}

func TestLabCheckJSON(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	// Not parallel: a timing test measures alone.
	code, out, errOut := runCLI(t, context.Background(), "lab", "check", "--rtt", "40ms", "--samples", "3", "--json")
	var doc struct {
		Pass     bool `json:"pass"`
		LabCheck []struct {
			TLS  string `json:"tls"`
			Rows []struct {
				Case     string  `json:"case"`
				Phase    string  `json:"phase"`
				RTTs     float64 `json:"rtts"`
				Measured int64   `json:"measured"`
				Pass     bool    `json:"pass"`
				Clients  []struct {
					Client   string `json:"client"`
					Measured int64  `json:"measured"`
					Pass     bool   `json:"pass"`
				} `json:"clients"`
			} `json:"rows"`
		} `json:"lab_check"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s%s", code, err, out, errOut)
	}
	if (code == 0) != doc.Pass {
		t.Errorf("exit %d with pass %v", code, doc.Pass)
	}
	if len(doc.LabCheck) != 2 || doc.LabCheck[0].TLS != "plain HTTP" || !strings.HasPrefix(doc.LabCheck[1].TLS, "TLS") {
		t.Fatalf("modes: %+v", doc.LabCheck)
	}
	for _, mode := range doc.LabCheck {
		for _, r := range mode.Rows {
			if r.Phase == "connect" && r.RTTs == 1 && time.Duration(r.Measured) < 30*time.Millisecond {
				t.Errorf("%s %s: connect %v over a 40ms link", mode.TLS, r.Case, time.Duration(r.Measured))
			}
			if r.Phase == "tls" && mode.TLS == "plain HTTP" && r.Measured != 0 {
				t.Errorf("plain HTTP has a TLS phase of %v", time.Duration(r.Measured))
			}
			// The network's TCP model rows are the raw request's alone.
			if tcpModelRow(r.Case) {
				if len(r.Clients) != 0 {
					t.Errorf("%s %s: clients %d on a TCP model row", mode.TLS, r.Case, len(r.Clients))
				}
				continue
			}
			// Every other row through the raw request and each provider's
			// SDK; the row passes only when all of them do.
			var names []string
			pass := true
			for _, c := range r.Clients {
				names = append(names, c.Client)
				pass = pass && c.Pass
				// An SDK whose upload does not wait shows 0 here.
				if r.Phase == "wait100" && time.Duration(c.Measured) < 30*time.Millisecond {
					t.Errorf("%s %s through %s: wait100 %v over a 40ms link", mode.TLS, r.Case, c.Client, time.Duration(c.Measured))
				}
			}
			if want := strings.Join(append([]string{"raw http"}, sdkNames(t)...), ","); strings.Join(names, ",") != want || pass != r.Pass {
				t.Errorf("%s %s %s: clients %v (pass %v, row pass %v), want %s", mode.TLS, r.Case, r.Phase, names, pass, r.Pass, want)
			}
		}
	}
}

// tcpModelRow: lab check's slow-start, warm-connection and receive-window
// rows, measured by the raw request only.
func tcpModelRow(c string) bool {
	return strings.Contains(c, "slow start") || strings.Contains(c, "same connection") || strings.Contains(c, "receive window")
}

// sdkNames are the SDK clients lab check measures on this machine.
func sdkNames(t *testing.T) []string {
	var out []string
	for _, api := range cliAPIs(t) {
		out = append(out, api+" sdk")
	}
	return out
}

func TestLabCheckText(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	// Not parallel: a timing test measures alone.
	code, out, errOut := runCLI(t, context.Background(), "lab", "check", "--rtt", "20ms", "--samples", "3", "--tls")
	sc := bufio.NewScanner(strings.NewReader(out))
	rows := 0
	for sc.Scan() {
		if strings.Contains(sc.Text(), " pass") || strings.Contains(sc.Text(), " FAIL") {
			rows++
		}
	}
	if rows < 7 || (code != 0) != strings.Contains(out, "FAIL") {
		t.Errorf("exit %d, %d rows:\n%s%s", code, rows, out, errOut)
	}
}

func TestRunCountsLabFaults(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "run", "lab", "--json", "--conn", "fresh",
		"--fault", "reset=10%,slowdown=15%,timeout=5%", "--timeout", "300ms",
		"--workload", "latency", "--gets", "200", "--op-sizes", "0", "--op-count", "1", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d struct {
		Results []struct {
			Op      string           `json:"op"`
			Count   int64            `json:"count"`
			Errors  int64            `json:"errors"`
			ByClass map[string]int64 `json:"errors_by_class"`
			TTFB    struct{ Max float64 }
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	get := d.Results[0]
	var sum int64
	for _, v := range get.ByClass {
		sum += v
	}
	if get.ByClass["reset"] == 0 || get.ByClass["throttled"] == 0 || get.ByClass["timeout"] == 0 || sum == 0 {
		t.Errorf("error classes %v", get.ByClass)
	}
	if get.TTFB.Max >= 300 {
		t.Errorf("a failed request's time leaked into the latency: max ttfb %v ms", get.TTFB.Max)
	}
}
