package lab

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/netns"
)

func needNamespaces(t *testing.T) {
	t.Helper()
	if err := netns.Available(); err != nil {
		t.Skipf("no network namespaces with TUN devices here (%v): the netns path needs Linux and root", err)
	}
}

// execLines runs argv through l.ExecEnv and returns its output's lines.
func execLines(t *testing.T, l *Lab, argv, env []string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, err := l.ExecEnv(ctx, argv, env, nil, &out, &errb)
	if err != nil || code != 0 {
		t.Fatalf("%v: exit %d, %v: %s", argv, code, err, errb.String())
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// nagleTimes runs testdata/nagle.py through the lab: each request's time.
func nagleTimes(t *testing.T, l *Lab, n int, nodelay bool) []time.Duration {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not on PATH")
	}
	nd := "NODELAY=0"
	if nodelay {
		nd = "NODELAY=1"
	}
	var ds []time.Duration
	for _, line := range execLines(t, l, []string{"python3", "testdata/nagle.py", strconv.Itoa(n)}, []string{nd}) {
		f := strings.Fields(line)
		ms, err := strconv.ParseFloat(f[0], 64)
		if err != nil || len(f) < 2 || f[1] != "200" {
			t.Fatalf("nagle.py: %q", line)
		}
		ds = append(ds, time.Duration(ms*float64(time.Millisecond)))
	}
	return ds
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// referenceNagle is the same client against the Linux reference (kernel
// TCP at both ends of the same wire): each request's time.
func referenceNagle(t *testing.T, rtt time.Duration, n int, nodelay bool) []time.Duration {
	t.Helper()
	p, err := netns.NewPair(netem.Config{Up: netem.Path{Delay: rtt / 2}, Down: netem.Path{Delay: rtt / 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ln, err := p.Server.Listen("tcp", netem.ServerAddr.String()+":80")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })}
	go srv.Serve(ln)
	defer srv.Close()
	c, err := p.Dial("tcp", netem.ServerAddr.String()+":80")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.(*net.TCPConn).SetNoDelay(nodelay)
	br := bufio.NewReader(c)
	var ds []time.Duration
	for i := range n {
		start := time.Now()
		fmt.Fprintf(c, "PUT /objbench/k%d HTTP/1.1\r\nHost: lab\r\nContent-Length: 100\r\n\r\n", i)
		if _, err := c.Write(bytes.Repeat([]byte("x"), 100)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ds = append(ds, time.Since(start))
	}
	return ds
}

// TestExecNetnsNagle is the first case at 80 ms: through lab exec
// on the netns path, a kept connection's PUT written as headers then body
// with Nagle on takes two round trips plus the server's delayed ACK, within
// ±10% of the Linux reference's median (the reference's own requests spread
// by ±3% run to run: 203-211 ms measured), and one round trip ±10% with
// TCP_NODELAY. The first request of each connection is left out (Linux
// acknowledges at once on a new connection: quick-ack).
func TestExecNetnsNagle(t *testing.T) {
	needNamespaces(t)
	timingTest(t)
	rtt := 80 * time.Millisecond
	l := startLab(t, Config{RTT: &rtt, Network: NetworkNetns})
	if l.Network().Model != NetworkNetns || l.Info("s3").Network != NetworkNetns {
		t.Fatalf("network %q, want netns", l.Network().Model)
	}
	for _, nodelay := range []bool{false, true} {
		lab := medianOf(nagleTimes(t, l, 7, nodelay)[1:])
		ref := medianOf(referenceNagle(t, rtt, 7, nodelay)[1:])
		t.Logf("nodelay %v: lab exec %v per request, Linux reference %v", nodelay, lab, ref)
		if d := lab - ref; d > ref/10 || d < -ref/10 {
			t.Errorf("nodelay %v: lab exec %v per request, Linux reference %v: want within ±10%%", nodelay, lab, ref)
		}
		want := 2 * rtt
		if nodelay {
			want = rtt
		}
		if lab < want*9/10 || !nodelay && lab < want+20*time.Millisecond {
			t.Errorf("nodelay %v: %v per request, want %v plus the delayed ACK", nodelay, lab, want)
		}
	}
}

// TestExecNetnsCurlConnect: curl's time_connect through lab exec is one
// round trip ±10% on the netns path, and about nothing on the netstack
// path (its connect ends at the local endpoint), where the lab serves the
// same request in the same total time.
func TestExecNetnsCurlConnect(t *testing.T) {
	needNamespaces(t)
	timingTest(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not on PATH")
	}
	rtt := 80 * time.Millisecond
	argv := []string{"sh", "-c", `curl -s -o /dev/null -w '%{time_connect} %{time_total} %{http_code}\n' "$AWS_ENDPOINT_URL/objbench/"`}
	for _, tc := range []struct {
		network        string
		connLo, connHi time.Duration
	}{
		{NetworkNetns, rtt * 9 / 10, rtt * 11 / 10},
		{NetworkNetstack, 0, 10 * time.Millisecond},
	} {
		l := startLab(t, Config{RTT: &rtt, Network: tc.network})
		f := strings.Fields(execLines(t, l, argv, nil)[0])
		conn, _ := strconv.ParseFloat(f[0], 64)
		total, _ := strconv.ParseFloat(f[1], 64)
		connect := time.Duration(conn * float64(time.Second))
		t.Logf("%s: time_connect %v, total %.0f ms, HTTP %s", tc.network, connect, total*1000, f[2])
		if f[2] != "200" || connect < tc.connLo || connect > tc.connHi {
			t.Errorf("%s: time_connect %v (HTTP %s), want %v to %v", tc.network, connect, f[2], tc.connLo, tc.connHi)
		}
		if total < 1.9*rtt.Seconds() || total > 2.3*rtt.Seconds() {
			t.Errorf("%s: total %.0f ms, want 2 round trips", tc.network, total*1000)
		}
	}
}

// TestNetworkChoice: auto takes netns where namespaces work and falls back
// to netstack with a notice where they do not; netns then refuses to start;
// without an emulated link there is nothing to put a program on.
func TestNetworkChoice(t *testing.T) {
	rtt := 20 * time.Millisecond
	if netns.Available() == nil {
		l := startLab(t, Config{RTT: &rtt, Network: NetworkAuto})
		if l.Network().Model != NetworkNetns || l.Notice() != "" || !strings.Contains(l.ProgramEndpoint("s3"), serverAddr.String()) {
			t.Errorf("auto with namespaces: network %q, notice %q, endpoint %s", l.Network().Model, l.Notice(), l.ProgramEndpoint("s3"))
		}
	}
	saved := namespacesAvailable
	namespacesAvailable = func() error { return errors.New("operation not permitted") }
	defer func() { namespacesAvailable = saved }()
	l := startLab(t, Config{RTT: &rtt, Network: NetworkAuto})
	info := l.Info("s3")
	if info.Network != NetworkNetstack || !strings.Contains(l.Notice(), "not on the emulated wire") || info.NetworkNote != l.Notice() {
		t.Errorf("auto without namespaces: network %q, notice %q, note %q", info.Network, l.Notice(), info.NetworkNote)
	}
	if l.ProgramEndpoint("s3") != l.LocalEndpoint("s3") {
		t.Errorf("fallback endpoint %s, want the local endpoint %s", l.ProgramEndpoint("s3"), l.LocalEndpoint("s3"))
	}
	if _, err := Start(context.Background(), Config{RTT: &rtt, Network: NetworkNetns}); err == nil || !strings.Contains(err.Error(), "netstack works anywhere") {
		t.Errorf("netns without namespaces: %v", err)
	}
	namespacesAvailable = saved
	l = startLab(t, Config{Network: NetworkAuto})
	if l.Network().Model != "direct" || l.Notice() != "" {
		t.Errorf("local profile: network %q, notice %q", l.Network().Model, l.Notice())
	}
}

// TestOwnClientNetworkChoice: for objbench's own client alone (run),
// auto keeps the user-space stacks where they meet Linux's TCP (a round
// trip only, or with duplication) and takes the kernel's behind a
// bandwidth cap, with random or bursty loss or with reordering, where they
// do not (bench/grid.sh); without namespaces it falls
// back to netstack with a notice that says what that costs.
func TestOwnClientNetworkChoice(t *testing.T) {
	rtt, bw, loss := 20*time.Millisecond, int64(50e6), 0.01
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"round trip only", Config{RTT: &rtt}, NetworkNetstack},
		{"bandwidth cap", Config{RTT: &rtt, Bandwidth: &bw}, NetworkNetns},
		{"random loss", Config{RTT: &rtt, Loss: &loss}, NetworkNetns},
		{"bursty loss", Config{RTT: &rtt, Bursty: &netem.GilbertElliott{P: 0.01, R: 0.3, BadLoss: 1}}, NetworkNetns},
		{"reordering", Config{RTT: &rtt, Reorder: &netem.Reorder{Share: 0.25}}, NetworkNetns},
		{"duplication", Config{RTT: &rtt, Duplicate: &loss}, NetworkNetstack},
		{"local", Config{}, "direct"},
	} {
		tc.cfg.Network, tc.cfg.OwnClient = NetworkAuto, true
		if tc.want == NetworkNetns && netns.Available() != nil {
			continue
		}
		l := startLab(t, tc.cfg)
		if got := l.Info("s3").Network; got != tc.want || l.Notice() != "" {
			t.Errorf("%s: network %q, notice %q; want %q", tc.name, got, l.Notice(), tc.want)
		}
		l.Close()
	}
	saved := namespacesAvailable
	namespacesAvailable = func() error { return errors.New("operation not permitted") }
	defer func() { namespacesAvailable = saved }()
	l := startLab(t, Config{RTT: &rtt, Bandwidth: &bw, Network: NetworkAuto, OwnClient: true})
	if info := l.Info("s3"); info.Network != NetworkNetstack || !strings.Contains(info.NetworkNote, "objbench's own TCP is the lab's user-space stacks") {
		t.Errorf("without namespaces: network %q, note %q", info.Network, info.NetworkNote)
	}
}

// TestNetnsLabLeavesNothing: after Close no handle or thread of ours is in
// a namespace the lab made (the kernel has removed them and their devices).
func TestNetnsLabLeavesNothing(t *testing.T) {
	needNamespaces(t)
	before := netnsRefs()
	rtt := 10 * time.Millisecond
	l, err := Start(context.Background(), Config{RTT: &rtt, Network: NetworkNetns, APIs: []string{"s3", "gcs"}})
	if err != nil {
		t.Fatal(err)
	}
	execLines(t, l, []string{"true"}, nil)
	if during := netnsRefs(); len(during) <= len(before) {
		t.Fatalf("no namespace handles while the lab runs: %v", during)
	}
	l.Close()
	if after := netnsRefs(); len(after) != len(before) {
		t.Errorf("after Close: %d references to network namespaces, %d before: %v", len(after), len(before), after)
	}
}

// netnsRefs are our file descriptors and threads in network namespaces
// other than the process's own.
func netnsRefs() []string {
	home, _ := os.Readlink("/proc/self/ns/net")
	var refs []string
	for _, glob := range []string{"/proc/self/fd/*", "/proc/self/task/*/ns/net"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if id, err := os.Readlink(p); err == nil && strings.HasPrefix(id, "net:[") && id != home {
				refs = append(refs, p+" "+id)
			}
		}
	}
	return refs
}

// TestRootlessChoice: as a user other than root, where namespaces need a
// user namespace, auto and netns ask to be started again in one
// (ErrRelaunch) where the kernel allows it; where it does not, auto falls
// back with a notice that says which setting and its fix, and netns
// refuses with it.
func TestRootlessChoice(t *testing.T) {
	rtt := 20 * time.Millisecond
	savedNS, savedEUID, savedCan := namespacesAvailable, euid, canRelaunch
	defer func() { namespacesAvailable, euid, canRelaunch = savedNS, savedEUID, savedCan }()
	namespacesAvailable = func() error { return errors.New("netns: new network namespace: operation not permitted") }
	euid = func() int { return 1000 }
	disabled := errors.New("unprivileged user namespaces are disabled: user.max_user_namespaces=0; enable them with sudo sysctl -w user.max_user_namespaces=15000")
	for _, tc := range []struct {
		name    string
		network string
		can     error
		wantErr error  // from Start
		errText string // in Start's error
		note    string // in the notice
	}{
		{"auto, user namespaces", NetworkAuto, nil, ErrRelaunch, "", ""},
		{"netns, user namespaces", NetworkNetns, nil, ErrRelaunch, "", ""},
		{"auto, none", NetworkAuto, disabled, nil, "", "sysctl -w user.max_user_namespaces=15000"},
		{"netns, none", NetworkNetns, disabled, nil, "sysctl -w user.max_user_namespaces=15000", ""},
		{"netstack", NetworkNetstack, nil, nil, "", ""},
	} {
		canRelaunch = func() error { return tc.can }
		l, err := Start(context.Background(), Config{RTT: &rtt, Network: tc.network})
		switch {
		case tc.wantErr != nil || tc.errText != "":
			if err == nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("%s: %v, want %v %q", tc.name, err, tc.wantErr, tc.errText)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		default:
			info := l.Info("s3")
			if info.Network != NetworkNetstack || info.Rootless || !strings.Contains(l.Notice(), tc.note) || (tc.note == "") != (l.Notice() == "") {
				t.Errorf("%s: network %q, rootless %v, notice %q; want netstack, notice with %q", tc.name, info.Network, info.Rootless, l.Notice(), tc.note)
			}
			l.Close()
		}
	}
}
