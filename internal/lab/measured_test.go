package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/twin"
)

// measuredProfile is a small valid profile.
func measuredProfile() *twin.Measured {
	pct := func(base float64) []float64 {
		p := make([]float64, 101)
		for i := range p {
			p[i] = base + float64(i)/10
		}
		return p
	}
	return &twin.Measured{Schema: twin.MeasuredSchema, MeasuredAt: time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC),
		Target:  twin.MeasuredTarget{URL: "s3://b", API: "s3"},
		Network: twin.MeasuredNetwork{RTTms: 40, JitterMs: 4, TLS: true, TLSVersion: "1.2", HTTP2: false, PlateauMBps: 12.5, DNSms: 3},
		Service: []twin.ServiceClass{{Op: "get", SizeBytes: 1024, Count: 50, PercentilesMs: pct(5)},
			{Op: "get", SizeBytes: 1 << 20, Count: 50, PercentilesMs: pct(50)}, {Op: "put", SizeBytes: 1024, Count: 50, PercentilesMs: pct(20)}},
		Errors:       twin.ErrorRates{Requests: 100, Throttle: 0.02},
		IdleTimeoutS: 4,
	}
}

func TestMeasuredProfileSettings(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "p", "prof.json")
	if err := measuredProfile().Save(file); err != nil {
		t.Fatal(err)
	}
	s := defaults()
	s.ProfileFile = file
	cfg, err := s.Config(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if *cfg.RTT != 40*time.Millisecond || *cfg.Jitter != 4*time.Millisecond || !cfg.TLS || cfg.TLSVersion != 0x0303 || !cfg.HTTP1Only ||
		cfg.DNSTime != 3*time.Millisecond || cfg.IdleTimeout != 4*time.Second || cfg.Faults.Slowdown != 0.02 || cfg.Service == nil {
		t.Errorf("config from the profile: %+v", cfg)
	}
	// 12.5 MB/s of goodput is 100 Mbit/s plus the headers' share.
	if bw := *cfg.Bandwidth; bw < 100_000_000 || bw > 104_000_000 {
		t.Errorf("bandwidth %d bit/s", bw)
	}
	// The flags the user gives win; lab:FILE is the same as --profile FILE.
	s.ProfileFile, s.RTT, s.NoTLS = "", dur(10*time.Millisecond), true
	if cfg, err = s.Config(nil, file); err != nil || *cfg.RTT != 10*time.Millisecond || cfg.TLS {
		t.Errorf("lab:FILE with --rtt and --no-tls: %v %+v", err, cfg)
	}
	s.ProfileFile = file
	if _, err := s.Config(nil, "cross-region"); err == nil {
		t.Error("a named profile and a file at once: no error")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`{"schema":"other"}`), 0o644)
	if _, err := twin.LoadMeasured(bad); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("a file of another schema: %v", err)
	}
	// Each request draws from its class: the nearest size, GET for an
	// operation not measured.
	m := measuredProfile()
	for _, c := range []struct {
		op     string
		size   int64
		lo, hi time.Duration
	}{{"get", 2000, 5 * time.Millisecond, 15 * time.Millisecond}, {"get", 4 << 20, 50 * time.Millisecond, 60 * time.Millisecond},
		{"put", 1 << 20, 20 * time.Millisecond, 30 * time.Millisecond}, {"list", 0, 5 * time.Millisecond, 15 * time.Millisecond}} {
		for range 20 {
			if d := m.ServiceTime(c.op, c.size); d < c.lo || d > c.hi {
				t.Fatalf("%s %d B: drew %s, want %s to %s", c.op, c.size, d, c.lo, c.hi)
			}
		}
	}
}
