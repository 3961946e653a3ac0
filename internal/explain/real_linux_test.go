package explain

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/netns"
	"github.com/objbench/objbench/internal/realpath"
	"github.com/objbench/objbench/internal/timeline"
)

// realLab is a lab started on the host's loopback with TLS and its
// record kept: the oracle a run on the real path is held against.
type realLab struct {
	l   *lab.Lab
	env []string
}

func startRealLab(t *testing.T) *realLab { return startRealLabTLS(t, true) }

// startRealLabTLS is startRealLab, with TLS or plain HTTP.
func startRealLabTLS(t *testing.T, tls bool) *realLab {
	t.Helper()
	if err := netns.Available(); err != nil {
		t.Skipf("no network namespaces: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("the kernel path needs root")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := lab.Start(ctx, lab.Config{APIs: []string{"s3", "gcs"}, TLS: tls, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ca := ""
	if tls {
		ca = filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(ca, l.CAPEM(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range l.Env(ca) {
		// The program reaches the host's loopback at OBJBENCH_HOST.
		env = append(env, strings.ReplaceAll(kv, "127.0.0.1", realpath.HostAddr.String()))
	}
	return &realLab{l: l, env: env}
}

// run explains argv on the real path to the lab at rtt, and returns the
// document, the wire's timeline (server side) and the lab's record.
func (r *realLab) run(t *testing.T, argv []string, rtt time.Duration) (*document.ExplainDocument, []timeline.Conn, []timeline.Conn) {
	t.Helper()
	r.l.Recorder().Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	var wire []timeline.Conn
	p := netem.Path{Delay: rtt / 2}
	d, err := RunReal(ctx, RealConfig{Argv: argv, Timeout: time.Minute, Stdin: strings.NewReader(""), Output: &out, Prices: analysis.DefaultPrices(),
		Wire: netem.Config{Up: p, Down: p}, Env: r.env, OnTimeline: func(c []timeline.Conn) { wire = c }})
	if err != nil || d.Explain.ExitCode != 0 {
		r.l.Recorder().WaitClosed(time.Second)
		for _, c := range r.l.Recorder().Snapshot() {
			t.Logf("record conn %d: tls %s, %d requests, closed by %s", c.ID, c.TLSVersion, len(c.Requests), c.ClosedBy)
		}
		t.Fatalf("explain --real %v: %v (exit %v)\n%s", argv, err, d != nil && d.Explain.ExitCode != 0, out.String())
	}
	r.l.Recorder().WaitClosed(time.Second)
	return d, wire, r.l.Recorder().Snapshot()
}

// TestRealCurlSmoke: curl through explain --real reads its TLS with the
// key log objbench gave it (mode 0600, gone after the run).
func TestRealCurlSmoke(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	r := startRealLab(t)
	small := filepath.Join(t.TempDir(), "small")
	if err := os.WriteFile(small, bytes.Repeat([]byte("c"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	args := `curl -sSf -o /dev/null -H "Expect:"`
	for i := range 3 {
		args += ` -T ` + small + ` "$AWS_ENDPOINT_URL/objbench/curl-` + string(rune('a'+i)) + `"`
	}
	keyDirs := func() []string {
		m, _ := filepath.Glob(filepath.Join(os.TempDir(), "objbench-keys-*"))
		return m
	}
	before := keyDirs()
	// The program sees its key log: a file only its owner reads.
	args += ` && stat -c %a "$SSLKEYLOGFILE" && test -s "$SSLKEYLOGFILE" && echo "$NODE_OPTIONS"`
	var out bytes.Buffer
	p := netem.Path{Delay: 10 * time.Millisecond}
	d, err := RunReal(context.Background(), RealConfig{Argv: []string{"sh", "-c", args}, Timeout: time.Minute, Stdin: strings.NewReader(""), Output: &out,
		Prices: analysis.DefaultPrices(), Wire: netem.Config{Up: p, Down: p}, Env: r.env})
	if err != nil || d.Explain.ExitCode != 0 {
		t.Fatalf("%v: %s", err, out.String())
	}
	lines := strings.Fields(out.String())
	if len(lines) < 2 || lines[0] != "600" || !strings.HasPrefix(lines[1], "--tls-keylog=") {
		t.Errorf("the key log's mode and NODE_OPTIONS as the program saw them: %q; want 600 and --tls-keylog=", out.String())
	}
	if after := keyDirs(); len(after) > len(before) {
		t.Errorf("key log directories left behind: %v (before: %v)", after, before)
	}
	if c := d.Explain.Conns; len(c) != 1 || c[0].Read != "decrypted" || d.Explain.Requests != 3 {
		t.Errorf("%d connections, %d requests; want 1 decrypted with 3", len(c), d.Explain.Requests)
	}
}

// TestRealFallback: where no namespace can be made, the program's
// connections go through the CONNECT tunnel: as many as the lab saw, each
// HTTP/1.1 request inferred from its TLS records, an HTTP/2 connection
// read for its facts only.
func TestRealFallback(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	r := startRealLab(t)
	saved := realAvailable
	realAvailable = func() error { return errors.New("a test says so") }
	t.Cleanup(func() { realAvailable = saved })
	var env []string
	for _, kv := range r.env { // no OBJBENCH_HOST mapping: the host's loopback itself
		env = append(env, strings.ReplaceAll(kv, realpath.HostAddr.String(), "127.0.0.1"))
	}
	small := filepath.Join(t.TempDir(), "small")
	if err := os.WriteFile(small, bytes.Repeat([]byte("c"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		proto, flag string
		// read is how the tunnel reads the connection: HTTP/1.1 requests
		// inferred from the records' direction; HTTP/2's facts only (its
		// SETTINGS exchange changes direction as requests do: curl's three
		// PUTs read 4 or 5 when they were inferred).
		read string
		// tls and alpn are what the ServerHello says in the clear (TLS
		// 1.3 encrypts the ALPN: HTTP/2 is told by its SETTINGS there).
		tls, alpn string
	}{
		{proto: "HTTP/1.1", flag: "--http1.1", read: "inferred", tls: "1.3"},
		{proto: "HTTP/2", flag: "--http2", read: "connection", tls: "1.3"},
		{proto: "HTTP/1.1 on TLS 1.2", flag: "--http1.1 --tls-max 1.2", read: "inferred", tls: "1.2", alpn: "http/1.1"},
		{proto: "HTTP/2 on TLS 1.2", flag: "--http2 --tls-max 1.2", read: "connection", tls: "1.2", alpn: "h2"},
	} {
		args := `curl -sSf -o /dev/null -H "Expect:" ` + c.flag
		for i := range 3 {
			args += ` -T ` + small + ` "$AWS_ENDPOINT_URL/objbench/fallback-` + string(rune('a'+i)) + `"`
		}
		r.l.Recorder().Reset()
		var notice, out bytes.Buffer
		d, err := RunReal(context.Background(), RealConfig{Argv: []string{"sh", "-c", args}, Timeout: time.Minute, Stdin: strings.NewReader(""), Output: &out,
			Prices: analysis.DefaultPrices(), Env: env, Notice: &notice})
		if err != nil || d.Explain.ExitCode != 0 {
			t.Fatalf("%s: %v\n%s", c.proto, err, out.String())
		}
		r.l.Recorder().WaitClosed(time.Second)
		rec := r.l.Recorder().Snapshot()
		e := &d.Explain
		if e.Source != SourceProxy || e.Path != realpath.ModeProxy || !strings.Contains(notice.String(), "HTTPS_PROXY") {
			t.Errorf("%s: source %q path %q, notice %q", c.proto, e.Source, e.Path, notice.String())
		}
		if e.Connections != len(rec) || e.TLSHandshakes != len(rec) || len(rec) == 0 || len(rec[0].Requests) != 3 {
			t.Fatalf("%s: tunnel: %d connections, %d TLS handshakes; the lab: %d connections, want 1 with 3 requests", c.proto, e.Connections, e.TLSHandshakes, len(rec))
		}
		for _, conn := range e.Conns {
			if conn.Read != c.read {
				t.Errorf("%s: conn %d read %q, want %s", c.proto, conn.ID, conn.Read, c.read)
			}
			if conn.TLSVersion != c.tls || conn.ALPN != c.alpn || conn.Cipher == "" {
				t.Errorf("%s: conn %d TLS %q ALPN %q cipher %q, want TLS %s ALPN %q and the cipher", c.proto, conn.ID, conn.TLSVersion, conn.ALPN, conn.Cipher, c.tls, c.alpn)
			}
		}
		// Inferred from records: a session ticket between a request's
		// header and body records can split one request in two. HTTP/2's
		// requests are not inferred at all.
		lo, hi := 3, 4
		if c.read == "connection" {
			lo, hi = 0, 0
		}
		if e.Requests < lo || e.Requests > hi {
			t.Errorf("%s: the tunnel inferred %d requests, want %d to %d (the lab served %d)", c.proto, e.Requests, lo, hi, len(rec[0].Requests))
		}
	}
}

// TestRealNagle runs the Nagle client (headers and a 100-byte body in two
// writes) through explain --real at 80 ms to a plain-HTTP server on the
// host's loopback: with Nagle on, each request takes two round trips and
// the server's delayed ACK and explain names the stall; with TCP_NODELAY
// one round trip, and it does not.
func TestRealNagle(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	r := startRealLabTLS(t, false)
	rtt := 80 * time.Millisecond
	for _, nodelay := range []string{"0", "1"} {
		var out bytes.Buffer
		p := netem.Path{Delay: rtt / 2}
		d, err := RunReal(context.Background(), RealConfig{Argv: []string{"env", "NODELAY=" + nodelay, "python3", "../lab/testdata/nagle.py", "6"},
			Output: &out, Timeout: time.Minute, Prices: analysis.DefaultPrices(), Wire: netem.Config{Up: p, Down: p}, Env: r.env})
		if err != nil {
			t.Fatalf("nodelay %s: %v: %s", nodelay, err, out.String())
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
		t.Logf("nodelay %s: %v per request; finding %v; rtt measured %.1f ms; read %s", nodelay, per, found, d.Explain.RTTms, d.Explain.Conns[0].Read)
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
		if d.Explain.Requests != 6 || d.Explain.Conns[0].Read != "plain" {
			t.Errorf("nodelay %s: %d requests read %q, want 6 plain", nodelay, d.Explain.Requests, d.Explain.Conns[0].Read)
		}
	}
}
