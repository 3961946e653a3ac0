package explain

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/netns"
	"github.com/objbench/objbench/internal/timeline"
)

func TestNagleStall(t *testing.T) {
	rtt := 80 * time.Millisecond
	t0 := time.Unix(1000, 0)
	// put is a request whose headers arrived at `at` and body `gap` later.
	put := func(at, gap time.Duration, size int64) *timeline.Request {
		a := t0.Add(at)
		return &timeline.Request{Method: "PUT", ContentLength: size, Arrived: a, BodyDone: a.Add(gap), Done: a.Add(gap + time.Millisecond)}
	}
	kept := func(alpn string, gap time.Duration, size int64) []timeline.Conn {
		c := timeline.Conn{ALPN: alpn}
		for i := range 4 {
			c.Requests = append(c.Requests, put(time.Duration(i)*time.Second, gap, size))
		}
		return []timeline.Conn{c}
	}
	overlapping := kept("http/1.1", 125*time.Millisecond, 100)
	for _, r := range overlapping[0].Requests {
		r.Done = r.Done.Add(2 * time.Second) // each still in flight when the next arrived
	}
	for _, tc := range []struct {
		name    string
		conns   []timeline.Conn
		stalled float64 // 0: no finding
	}{
		{"nagle and delayed ACK", kept("http/1.1", rtt+44*time.Millisecond, 100), 4},
		{"nagle, quick ACK", kept("", rtt+time.Millisecond, 100), 4},
		{"TCP_NODELAY", kept("http/1.1", 300*time.Microsecond, 100), 0},
		{"h2 multiplexes", kept("h2", rtt+44*time.Millisecond, 100), 0},
		{"large body", kept("http/1.1", rtt+44*time.Millisecond, 1<<20), 0},
		{"beyond any ACK timer", kept("http/1.1", rtt+time.Second, 100), 0},
		{"other requests in flight", overlapping, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := NagleStall(Input{Conns: tc.conns, RTT: rtt})
			if ok != (tc.stalled > 0) || ok && f.Evidence["stalled"] != tc.stalled {
				t.Fatalf("finding %v %+v, want %v stalled", ok, f, tc.stalled)
			}
			if ok && (f.ID != "explain-nagle-stall" || !strings.Contains(f.Text, "TCP_NODELAY") || f.Evidence["save_s"] <= 0) {
				t.Errorf("finding %+v", f)
			}
		})
	}
	if _, ok := NagleStall(Input{Conns: kept("", rtt, 100)}); ok {
		t.Error("no RTT: no finding")
	}
}

// TestExplainNagle runs testdata's Nagle client under explain at 80 ms on
// the netns path: with Nagle on, its requests take two round trips plus the
// server's delayed ACK and explain names the stall; with TCP_NODELAY they
// take one round trip and it does not.
func TestExplainNagle(t *testing.T) {
	if err := netns.Available(); err != nil {
		t.Skipf("the netns path needs network namespaces (Linux, root): %v", err)
	}
	if raceDetector || testing.Short() {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	rtt := 80 * time.Millisecond
	for _, nodelay := range []string{"0", "1"} {
		var out bytes.Buffer
		d, err := Run(context.Background(), Config{
			Lab:  lab.Config{RTT: &rtt, APIs: []string{"s3"}, Network: lab.NetworkNetns},
			Argv: []string{"env", "NODELAY=" + nodelay, "python3", "../lab/testdata/nagle.py", "6"}, Output: &out,
			Timeout: time.Minute, Prices: analysis.DefaultPrices()})
		if err != nil {
			t.Fatalf("nodelay %s: %v: %s", nodelay, err, out.String())
		}
		if d.Lab.Network != lab.NetworkNetns {
			t.Errorf("lab.network %q, want netns", d.Lab.Network)
		}
		var times []time.Duration
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if v, err := strconv.ParseFloat(strings.Fields(line)[0], 64); err == nil {
				times = append(times, time.Duration(v*float64(time.Millisecond)))
			}
		}
		if len(times) != 6 {
			t.Fatalf("nodelay %s: output %q", nodelay, out.String())
		}
		slices.Sort(times)
		per := times[len(times)/2]
		found := slices.ContainsFunc(d.Explain.Findings, func(f document.Finding) bool { return f.ID == "explain-nagle-stall" })
		t.Logf("nodelay %s: %v per request; finding %v", nodelay, per, found)
		// Nagle: two round trips and Linux's delayed ACK (40 to 200 ms);
		// TCP_NODELAY: one round trip ±10%.
		lo, hi := 2*rtt+30*time.Millisecond, 2*rtt+220*time.Millisecond
		if nodelay == "1" {
			lo, hi = rtt*9/10, rtt*11/10
		}
		if per < lo || per > hi {
			t.Errorf("nodelay %s: %v per request, want %v to %v", nodelay, per, lo, hi)
		}
		if found != (nodelay == "0") {
			t.Errorf("nodelay %s: Nagle finding %v", nodelay, found)
		}
	}
}
