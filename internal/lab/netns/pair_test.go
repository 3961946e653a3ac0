//go:build linux

package netns

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
)

func needNamespaces(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("no network namespaces with TUN devices here (%v): the Linux reference needs root", err)
	}
}

func newPair(t *testing.T, rtt time.Duration) *Pair {
	t.Helper()
	p, err := NewPair(netem.Config{Up: netem.Path{Delay: rtt / 2}, Down: netem.Path{Delay: rtt / 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// nagleRequests sends n PUTs of a 100-byte body on one kept connection,
// headers and body in two writes, and returns each one's time.
func nagleRequests(c net.Conn, n int) ([]time.Duration, error) {
	br := bufio.NewReader(c)
	var out []time.Duration
	for i := range n {
		start := time.Now()
		if _, err := fmt.Fprintf(c, "PUT /k%d HTTP/1.1\r\nHost: lab\r\nContent-Length: 100\r\n\r\n", i); err != nil {
			return nil, err
		}
		if _, err := c.Write([]byte(strings.Repeat("x", 100))); err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out = append(out, time.Since(start))
	}
	return out, nil
}

func timingTest(t *testing.T) {
	t.Helper()
	if raceDetector || testing.Short() {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestReferenceNagle is the Linux reference's own check at 80 ms: a kept
// connection's PUT written as headers then body, Nagle on, takes two round
// trips plus the server's delayed ACK (Linux's is 40 ms at least, 200 ms at
// most); with TCP_NODELAY one round trip ±10%.
func TestReferenceNagle(t *testing.T) {
	needNamespaces(t)
	timingTest(t)
	rtt := 80 * time.Millisecond
	p := newPair(t, rtt)
	ln, err := p.Server.Listen("tcp", netem.ServerAddr.String()+":80")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })}
	go srv.Serve(ln)
	defer srv.Close()
	for _, nodelay := range []bool{false, true} {
		c, err := p.Dial("tcp", netem.ServerAddr.String()+":80")
		if err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).SetNoDelay(nodelay)
		ds, err := nagleRequests(c, 6)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("nodelay %v: %v", nodelay, ds)
		m := median(ds[1:])
		lo, hi := 2*rtt+40*time.Millisecond, 2*rtt+200*time.Millisecond
		if nodelay {
			lo, hi = rtt*9/10, rtt*11/10
		}
		if m < lo || m > hi {
			t.Errorf("nodelay %v: median %v per request, want %v to %v", nodelay, m, lo, hi)
		}
	}
}

// TestPairLeavesNothing: once closed, nothing of ours refers to either
// namespace (no handle, no thread in it), so the kernel has removed them
// with their devices.
func TestPairLeavesNothing(t *testing.T) {
	needNamespaces(t)
	p, err := NewPair(netem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ns := range []*NS{p.Client, p.Server} {
		id, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(ns.f.Fd())))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if refs := nsRefs(t, ids); len(refs) != 2 {
		t.Fatalf("open pair: %d references to %v, want its 2 handles", len(refs), ids)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if refs := nsRefs(t, ids); len(refs) != 0 {
		t.Errorf("closed pair: still referred to by %v", refs)
	}
}

// nsRefs lists our file descriptors and threads that refer to the namespaces ids.
func nsRefs(t *testing.T, ids []string) []string {
	var refs []string
	for _, glob := range []string{"/proc/self/fd/*", "/proc/self/task/*/ns/net"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if id, err := os.Readlink(p); err == nil && slices.Contains(ids, id) {
				refs = append(refs, p)
			}
		}
	}
	return refs
}

// TestPairStampsSends: the wire admits the kernel's packets when the
// kernel sent them (a packet socket's record of each, matched to the
// device's copy), both ways, every packet of a transfer; with AdmitOnRead,
// none.
func TestPairStampsSends(t *testing.T) {
	needNamespaces(t)
	for _, onRead := range []bool{false, true} {
		p, err := NewPair(netem.Config{Up: netem.Path{Delay: 5 * time.Millisecond}, Down: netem.Path{Delay: 5 * time.Millisecond}, AdmitOnRead: onRead})
		if err != nil {
			t.Fatal(err)
		}
		transfer(t, p, 4<<20)
		time.Sleep(50 * time.Millisecond) // the last ACKs and FINs cross
		up, down := p.Pipe.Stats()
		p.Close()
		for _, d := range []struct {
			name string
			st   netem.Stats
		}{{"client to server", up}, {"server to client", down}} {
			t.Logf("admit on read %v, %s: %d packets, %d stamped", onRead, d.name, d.st.Packets, d.st.Stamped)
			switch {
			case d.st.Packets < 10:
				t.Errorf("%s: %d packets", d.name, d.st.Packets)
			case onRead && d.st.Stamped != 0:
				t.Errorf("admit on read, %s: %d of %d packets admitted when their kernel sent them, want none", d.name, d.st.Stamped, d.st.Packets)
			case !onRead && d.st.Stamped < d.st.Packets*99/100:
				t.Errorf("%s: %d of %d packets admitted when their kernel sent them, want every one", d.name, d.st.Stamped, d.st.Packets)
			}
		}
	}
}

// transfer sends n bytes from the server's namespace to the client's.
func transfer(t *testing.T, p *Pair, n int64) {
	t.Helper()
	ln, err := p.Server.Listen("tcp", netem.ServerAddr.String()+":80")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = io.CopyN(c, zeros{}, n)
		c.Close()
	}()
	c, err := p.Dial("tcp", netem.ServerAddr.String()+":80")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.Copy(io.Discard, c)
	c.Close()
	if err != nil || got != n {
		t.Fatalf("read %d bytes (%v), want %d", got, err, n)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }
