package labcheck

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
)

func timingTest(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if testing.Short() {
		t.Skip("timing test")
	}
}

// TestNetworkAccuracy checks the emulated network against the model at 40
// and 80 ms and 1 Gbit: connect, TLS and wait within ±10%, cold 1 and 4 MiB
// GETs within ±1 round trip of slow start, warm ones faster, and at 80 ms a
// 64 MiB GET at the receive window's rate ±15%.
func TestNetworkAccuracy(t *testing.T) {
	timingTest(t)
	gbit := int64(1e9)
	for _, tc := range []struct {
		rtt     time.Duration
		version uint16
		tlsRTTs float64
	}{
		{40 * time.Millisecond, tls.VersionTLS13, 1},
		{80 * time.Millisecond, tls.VersionTLS13, 1},
		{80 * time.Millisecond, tls.VersionTLS12, 2},
	} {
		t.Run(fmt.Sprintf("%v/tls%x", tc.rtt, tc.version), func(t *testing.T) {
			l := startLab(t, lab.Config{RTT: &tc.rtt, Bandwidth: &gbit, TLS: true, TLSVersion: tc.version})
			o := Options{Tolerance: 0.10, Slack: time.Millisecond, WindowSize: -1, BandwidthSize: -1}
			if tc.rtt == 80*time.Millisecond && tc.version == tls.VersionTLS13 {
				o.WindowSize = 64 << 20
			}
			rows := checkRows(t, l, o, "connect", "tls", "wait", "total")
			if r := find(t, rows, "fresh", "tls"); r.RTTs != tc.tlsRTTs {
				t.Errorf("tls: %v RTTs expected, want %v", r.RTTs, tc.tlsRTTs)
			}
			for _, c := range []struct {
				prefix string
				rounds float64 // slow start's rounds for the size
			}{{"cold 1 MiB", 7}, {"cold 4 MiB", 9}} {
				if r := find(t, rows, c.prefix, "total"); r.RTTs != 1+tc.tlsRTTs+c.rounds {
					t.Errorf("%s: model %v round trips, want %v", c.prefix, r.RTTs, 1+tc.tlsRTTs+c.rounds)
				}
			}
			if o.WindowSize > 0 {
				r := find(t, rows, "warm 64 MiB", "recv")
				rate := float64(64<<20) / r.Measured.Seconds() / 1e6
				model := float64(64<<20) / r.Expected.Seconds() / 1e6
				t.Logf("64 MiB at %.1f MB/s (window model %.1f MB/s; the link allows 125)", rate, model)
				if rate > model*1.15 {
					t.Errorf("64 MiB at %.1f MB/s: above the receive window's %.1f MB/s", rate, model)
				}
				// Below the model is the machine's CPU unless the stacks can
				// move twice the window's rate here and now.
				if capacity := stackCapacity(t); rate < model*0.85 && capacity >= 2*model {
					t.Errorf("64 MiB at %.1f MB/s: below the receive window's %.1f MB/s (the stacks move %.0f MB/s at 0 ms)", rate, model, capacity)
				} else if rate < model*0.85 {
					t.Logf("below the model, and so is the machine: the stacks move %.0f MB/s at 0 ms right now", capacity)
				}
			}
		})
	}
}

// progressGET fetches url and returns when each half of the body arrived.
func progressGET(ctx context.Context, client *http.Client, url string) (half, end time.Duration, n int64, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return 0, 0, 0, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	first, err := io.CopyN(io.Discard, resp.Body, resp.ContentLength/2)
	if err != nil {
		return 0, 0, 0, err
	}
	half = time.Since(start)
	rest, err := io.Copy(io.Discard, resp.Body)
	return half, time.Since(start), first + rest, err
}

func put(t *testing.T, l *lab.Lab, key string, size int) {
	t.Helper()
	tr := nettrace.NewTransport(nettrace.Config{Dial: l.Dial, Resolver: l.Resolver(), TLS: l.ClientTLS()})
	defer tr.CloseIdleConnections()
	if _, err := exchange(context.Background(), tr, "PUT", objectURLs("s3", l.Endpoint("s3")).put(key), make([]byte, size), "s3"); err != nil {
		t.Fatal(err)
	}
}

// TestNetworkBottleneck: at 40 ms and 100 Mbit, a 32 MiB GET's steady part
// (its second half, on a connection past slow start's overshoot) runs at
// 90% of the link or more, and never above it.
func TestNetworkBottleneck(t *testing.T) {
	timingTest(t)
	bw := int64(100e6)
	l := startLab(t, lab.Config{RTT: dur(40 * time.Millisecond), Bandwidth: &bw})
	put(t, l, "big", 32<<20)
	var rate float64
	tr := nettrace.NewTransport(nettrace.Config{Dial: l.Dial})
	defer tr.CloseIdleConnections()
	url := objectURLs("s3", l.Endpoint("s3")).get("big")
	if _, _, _, err := progressGET(context.Background(), tr.Client(), url); err != nil {
		t.Fatal(err)
	}
	for try := range 5 {
		half, end, n, err := progressGET(context.Background(), tr.Client(), url)
		if err != nil || n != 32<<20 {
			t.Fatalf("GET: %d bytes, %v", n, err)
		}
		rate = float64(16<<20) * 8 / (end - half).Seconds()
		_, stats := l.Wire()
		up, down := stats()
		t.Logf("try %d: first half %v, second half %v: %.1f Mbit/s (wire up %+v down %+v)", try+1, half, end-half, rate/1e6, up, down)
		if rate >= 0.9*float64(bw) {
			break
		}
	}
	if rate < 0.9*float64(bw) || rate > 1.01*float64(bw) {
		t.Errorf("steady rate %.1f Mbit/s, want 90-100 Mbit/s", rate/1e6)
	}
}

// TestNetworkLoss: 1% loss each way slows a 16 MiB GET measurably, and the
// client sees no error (TCP retransmits). At 10 ms: at 40 ms 1% loss holds
// the transfer near the Mathis bound, half a megabyte a second, 40 s.
func TestNetworkLoss(t *testing.T) {
	timingTest(t)
	rtt, gbit := 10*time.Millisecond, int64(1e9)
	measure := func(loss float64) time.Duration {
		l := startLab(t, lab.Config{RTT: &rtt, Bandwidth: &gbit, Loss: &loss})
		put(t, l, "16m", 16<<20)
		tr := nettrace.NewTransport(nettrace.Config{Dial: l.Dial, Strategy: nettrace.Fresh})
		defer tr.CloseIdleConnections()
		var best time.Duration
		for range 2 {
			_, end, n, err := progressGET(context.Background(), tr.Client(), objectURLs("s3", l.Endpoint("s3")).get("16m"))
			if err != nil || n != 16<<20 {
				t.Fatalf("loss %g: %d bytes, %v", loss, n, err)
			}
			if best == 0 || end < best {
				best = end
			}
		}
		return best
	}
	clean, lossy := measure(0), measure(0.01)
	t.Logf("16 MiB cold GET at 10 ms: %v without loss, %v with 1%% loss each way", clean, lossy)
	if lossy < clean*5/4 {
		t.Errorf("1%% loss: %v against %v without: want at least 25%% slower", lossy, clean)
	}
}

// TestNetworkDNS: with --dns-time 20ms a new connection's dns phase is
// 20 ms ±10%, and a reused one has none.
func TestNetworkDNS(t *testing.T) {
	timingTest(t)
	l := startLab(t, lab.Config{RTT: dur(10 * time.Millisecond), DNSTime: 20 * time.Millisecond})
	if !strings.Contains(l.Endpoint("s3"), "s3."+lab.Domain) {
		t.Fatalf("endpoint %s is not named", l.Endpoint("s3"))
	}
	put(t, l, "k", 1024)
	fresh := nettrace.NewTransport(nettrace.Config{Dial: l.Dial, Resolver: l.Resolver(), Strategy: nettrace.Fresh})
	defer fresh.CloseIdleConnections()
	pooled := nettrace.NewTransport(nettrace.Config{Dial: l.Dial, Resolver: l.Resolver()})
	defer pooled.CloseIdleConnections()
	url := objectURLs("s3", l.Endpoint("s3")).get("k")
	ctx := context.Background()
	ss, err := samples(ctx, 5, func() (nettrace.Sample, error) { return exchange(ctx, fresh, "GET", url, nil, "s3") })
	if err != nil {
		t.Fatal(err)
	}
	dns := median(ss, phase(nettrace.DNS))
	if dns < 18*time.Millisecond || dns > 22*time.Millisecond {
		t.Errorf("dns phase %v on new connections, want 20ms ±10%%", dns)
	}
	if _, err := exchange(ctx, pooled, "GET", url, nil, "s3"); err != nil {
		t.Fatal(err)
	}
	s, err := exchange(ctx, pooled, "GET", url, nil, "s3")
	if err != nil || !s.Reused || s.Phases[nettrace.DNS] != 0 {
		t.Errorf("reused connection: reused %v dns %v err %v", s.Reused, s.Phases[nettrace.DNS], err)
	}
}

// stackCapacity is what the stacks move on this machine now: a warm 64 MiB
// GET across the network at zero round-trip time, in MB/s.
func stackCapacity(t *testing.T) float64 {
	zero := time.Duration(0)
	l := startLab(t, lab.Config{RTT: &zero, ForceLink: true})
	put(t, l, "cap", 64<<20)
	tr := nettrace.NewTransport(nettrace.Config{Dial: l.Dial})
	defer tr.CloseIdleConnections()
	best := 0.0
	for range 3 {
		_, end, n, err := progressGET(context.Background(), tr.Client(), objectURLs("s3", l.Endpoint("s3")).get("cap"))
		if err != nil {
			t.Fatal(err)
		}
		best = max(best, float64(n)/end.Seconds()/1e6)
	}
	return best
}
