package labcheck

import (
	"context"
	"crypto/tls"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
)

func dur(d time.Duration) *time.Duration { return &d }

func startLab(t *testing.T, cfg lab.Config) *lab.Lab {
	t.Helper()
	l, err := lab.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// checkRows runs Check once and fails on rows outside tolerance, among
// the phases named in assert (all when none). A row measured while over
// 5% of the wire's packets came late (document.CheckRow.MissedBusy) is logged and not
// judged, as the reference grid does: the machine's CPU was elsewhere, so
// its figure is the machine's, not the link model's. Before rows carried
// their lateness this took three tries; with two busy loops on both cores,
// the one try's misses were busy rows.
func checkRows(t *testing.T, l *lab.Lab, o Options, assert ...string) []document.CheckRow {
	t.Helper()
	rows, err := Check(context.Background(), l, "s3", o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Logf("%-32s %-8s rtts %.0f expected %6.1fms measured %6.1fms late %4.1f%% pass %v", r.Case, r.Phase, r.RTTs,
			float64(r.Expected)/1e6, float64(r.Measured)/1e6, 100*r.Late, r.Pass)
		if r.Pass || (len(assert) > 0 && !slices.Contains(assert, r.Phase)) {
			continue
		}
		if r.MissedBusy() {
			t.Logf("%s %s: measured %v, expected %v ± %v, while %.0f%% of the wire's packets came late: not judged",
				r.Case, r.Phase, r.Measured, r.Expected, r.Tolerance, 100*r.Late)
			continue
		}
		t.Errorf("%s %s: measured %v, expected %v ± %v (%.1f%% of packets late)", r.Case, r.Phase, r.Measured, r.Expected, r.Tolerance, 100*r.Late)
	}
	return rows
}

// find returns the row for case prefix and phase.
func find(t *testing.T, rows []document.CheckRow, casePrefix, phase string) document.CheckRow {
	t.Helper()
	for _, r := range rows {
		if strings.HasPrefix(r.Case, casePrefix) && r.Phase == phase {
			return r
		}
	}
	t.Fatalf("no row %q %q", casePrefix, phase)
	return document.CheckRow{}
}

// TestRoundTripMath checks the link model at --rtt 40ms within ±15%:
// connect, TLS (1.3: 1 RTT, 1.2: 2, plain: 0), wait, pooled TTFB and 100-continue.
func TestRoundTripMath(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if testing.Short() {
		t.Skip("timing test")
	}
	rtt := 40 * time.Millisecond
	tests := []struct {
		name    string
		tls     bool
		version uint16
		tlsRTTs float64
	}{
		{"plain", false, 0, 0},
		{"tls1.3", true, tls.VersionTLS13, 1},
		{"tls1.2", true, tls.VersionTLS12, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := startLab(t, lab.Config{RTT: &rtt, TLS: tc.tls, TLSVersion: tc.version})
			rows := checkRows(t, l, Options{Slack: time.Millisecond, SkipTCP: true})
			if r := find(t, rows, "fresh", "tls"); r.RTTs != tc.tlsRTTs {
				t.Errorf("tls: %v RTTs expected, want %v", r.RTTs, tc.tlsRTTs)
			}
			for _, c := range []struct{ cs, phase string }{{"fresh", "connect"}, {"fresh", "wait"}, {"reused", "ttfb"}, {"Expect", "wait100"}} {
				r := find(t, rows, c.cs, c.phase)
				if r.RTTs != 1 {
					t.Errorf("%s %s: %v RTTs expected, want 1", c.cs, c.phase, r.RTTs)
				}
				// The model's part must dominate: the baseline is the machine's own processing.
				if r.Measured < rtt*85/100 || r.Baseline > rtt/4 {
					t.Errorf("%s %s: measured %v with baseline %v for a %v round trip", c.cs, c.phase, r.Measured, r.Baseline, rtt)
				}
			}
			if r := find(t, rows, "reused", "connect"); r.Measured != 0 {
				t.Errorf("reused connection has connect %v", r.Measured)
			}
		})
	}
}

// TestBandwidth: a 32 MiB GET at 100 Mbit/s takes 2.68 s ±15% beyond its first byte.
func TestBandwidth(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if testing.Short() {
		t.Skip("timing test")
	}
	t.Parallel()
	bw := int64(100_000_000)
	l := startLab(t, lab.Config{RTT: dur(2 * time.Millisecond), Bandwidth: &bw})
	rows := checkRows(t, l, Options{BandwidthSize: 32 << 20, SkipTCP: true}, "recv")
	r := find(t, rows, "32 MiB", "recv")
	if want := 2684 * time.Millisecond; r.Expected < want-10*time.Millisecond || r.Expected > want+10*time.Millisecond {
		t.Errorf("expected %v, want about %v", r.Expected, want)
	}
}

// TestIdleTimeoutIsAReconnection: after the server's idle timeout, the next
// request opens a new connection and succeeds.
func TestIdleTimeoutIsAReconnection(t *testing.T) {
	t.Parallel()
	l := startLab(t, lab.Config{RTT: dur(2 * time.Millisecond), IdleTimeout: 200 * time.Millisecond})
	tr := nettrace.NewTransport(nettrace.Config{Dial: l.Dial})
	defer tr.CloseIdleConnections()
	urls := objectURLs("s3", l.Endpoint("s3"))
	ctx := context.Background()
	if _, err := exchange(ctx, tr, "PUT", urls.put("idle"), []byte("x"), "s3"); err != nil {
		t.Fatal(err)
	}
	s, err := exchange(ctx, tr, "GET", urls.get("idle"), nil, "s3")
	if err != nil || !s.Reused {
		t.Fatalf("second request: reused %v err %v", s.Reused, err)
	}
	time.Sleep(500 * time.Millisecond)
	s, err = exchange(ctx, tr, "GET", urls.get("idle"), nil, "s3")
	if err != nil {
		t.Fatalf("request after the idle timeout failed: %v", err)
	}
	if s.Reused || s.Phases[nettrace.Connect] <= 0 {
		t.Errorf("after idle timeout: reused %v connect %v, want a new connection", s.Reused, s.Phases[nettrace.Connect])
	}
	if tr.ConnsOpened() != 2 {
		t.Errorf("%d connections opened, want 2", tr.ConnsOpened())
	}
}

func TestServiceTime(t *testing.T) {
	t.Parallel()
	l := startLab(t, lab.Config{ServiceTime: 30 * time.Millisecond})
	rows := checkRows(t, l, Options{Samples: 3}, "none")
	if r := find(t, rows, "reused", "ttfb"); r.Measured < 30*time.Millisecond {
		t.Errorf("ttfb %v with a 30ms service time", r.Measured)
	}
}

func TestH2OfferedOnTLS(t *testing.T) {
	t.Parallel()
	l := startLab(t, lab.Config{TLS: true})
	tr := nettrace.NewTransport(nettrace.Config{Strategy: nettrace.H2, TLS: l.ClientTLS()})
	defer tr.CloseIdleConnections()
	s, err := exchange(context.Background(), tr, "GET", l.Endpoint("s3")+"/"+lab.Bucket+"/", nil, "s3")
	if err != nil {
		t.Fatal(err)
	}
	if s.Proto != "h2" || s.TLSVersion != "TLS1.3" {
		t.Errorf("proto %q tls %q, want h2 TLS1.3", s.Proto, s.TLSVersion)
	}
}
