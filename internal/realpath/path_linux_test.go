package realpath

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/netns"
)

func needNamespaces(t *testing.T) {
	t.Helper()
	if err := netns.Available(); err != nil {
		t.Skipf("no network namespaces here: %v", err)
	}
	if os.Geteuid() != 0 && !netns.Rootless() {
		t.Skip("the kernel path needs root")
	}
}

// TestHostLoopback: the program reaches a server on the host's loopback at
// HostAddr, its bytes go both ways, and every packet is on the capture.
func TestHostLoopback(t *testing.T) {
	needNamespaces(t)
	for _, tc := range []struct {
		name      string
		rtt       time.Duration
		translate bool
	}{{"direct", 0, false}, {"rtt 40ms", 40 * time.Millisecond, false}, {"translator", 0, true}, {"translator, rtt 40ms", 40 * time.Millisecond, true}} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() { _, _ = io.Copy(c, c); c.Close() }()
				}
			}()
			var mu sync.Mutex
			var packets, syns int
			capture := func(_ time.Time, b []byte) {
				mu.Lock()
				defer mu.Unlock()
				packets++
				if p, ok := parseIPv4(b); ok && p.proto() == protoTCP && p.payload()[13]&0x12 == 0x02 {
					syns++
				}
			}
			wire := netem.Config{Up: netem.Path{Delay: tc.rtt / 2}, Down: netem.Path{Delay: tc.rtt / 2}}
			p, err := Start(Config{Wire: wire, Capture: capture, Translator: tc.translate})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			port := ln.Addr().(*net.TCPAddr).Port
			start := time.Now()
			c, err := p.Dial(context.Background(), "tcp4", netip.AddrPortFrom(HostAddr, uint16(port)).String())
			if err != nil {
				t.Fatal(err)
			}
			connect := time.Since(start)
			msg := make([]byte, 200_000)
			for i := range msg {
				msg[i] = byte(i)
			}
			go func() { _, _ = c.Write(msg) }()
			got := make([]byte, len(msg))
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			c.Close()
			if string(got) != string(msg) {
				t.Fatal("echo differs")
			}
			if !raceDetector && (connect < tc.rtt || connect > tc.rtt+20*time.Millisecond) {
				t.Errorf("connect took %v, want the round trip %v", connect, tc.rtt)
			}
			want := ModeKernel
			if tc.translate {
				want = ModeTranslator
			}
			if p.Mode() != want {
				t.Errorf("mode %s, want %s", p.Mode(), want)
			}
			mu.Lock()
			defer mu.Unlock()
			if syns != 1 || packets < 2*len(msg)/1500 {
				t.Errorf("captured %d packets, %d SYNs; want at least %d and 1", packets, syns, 2*len(msg)/1500)
			}
		})
	}
}

// TestLookups: names resolve from the hosts file, loopback names to
// HostAddr, on the captured path.
func TestLookups(t *testing.T) {
	needNamespaces(t)
	hosts := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hosts, []byte("127.0.0.1 bucket.example.test\n10.1.2.3 other.example.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var n int
	var mu sync.Mutex
	p, err := Start(Config{HostsFile: hosts, Capture: func(_ time.Time, b []byte) {
		if q, ok := parseIPv4(b); ok && q.proto() == protoUDP {
			mu.Lock()
			n++
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct{ name, want string }{{"bucket.example.test", HostAddr.String()}, {"other.example.test", "10.1.2.3"}} {
		// The resolver dials from goroutines of its own: each dial is
		// made in the program's namespace, to the host's name server.
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return p.Dial(ctx, network, addr)
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, err := r.LookupHost(ctx, tc.name)
		cancel()
		if err != nil || len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.name, got, err, tc.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n < 4 || p.Stats().Lookups < 2 {
		t.Errorf("captured %d UDP packets, answered %d lookups", n, p.Stats().Lookups)
	}
}

// TestLoopbackNameServer: a name server on loopback in resolv.conf
// (systemd-resolved's) is answered in the program's namespace, and its
// lookups are on the capture.
func TestLoopbackNameServer(t *testing.T) {
	needNamespaces(t)
	dir := t.TempDir()
	hosts, resolv := filepath.Join(dir, "hosts"), filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(hosts, []byte("10.1.2.3 bucket.example.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resolv, []byte("nameserver 127.0.0.53\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	udp := 0
	p, err := Start(Config{HostsFile: hosts, ResolvConf: resolv, Capture: func(_ time.Time, b []byte) {
		if q, ok := parseIPv4(b); ok && q.proto() == protoUDP {
			mu.Lock()
			udp++
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return p.Dial(ctx, network, "127.0.0.53:53")
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := r.LookupHost(ctx, "bucket.example.test")
	if err != nil || len(got) != 1 || got[0] != "10.1.2.3" {
		t.Fatalf("lookup: %v %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if udp < 2 {
		t.Errorf("%d lookup packets captured, want the query and its answer at least", udp)
	}
}

// TestTranslatorRefusal: a destination refused beyond the edge is refused to
// the program too, and the path counts it with the reason.
func TestTranslatorRefusal(t *testing.T) {
	needNamespaces(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nobody listens there now
	p, err := Start(Config{Capture: func(time.Time, []byte) {}, Translator: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := p.Dial(ctx, "tcp4", netip.AddrPortFrom(HostAddr, uint16(port)).String())
	if err == nil {
		c.Close()
		t.Fatal("the program's connection to a closed port was accepted")
	}
	st := p.Stats()
	if st.Refused != 1 || st.Translated != 0 || !strings.Contains(st.LastRefusal, "refused") {
		t.Errorf("stats %+v: want 1 refused, 0 translated, the dial's error as the reason", st)
	}
}
