package calibrate

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/lab/twin"
	"github.com/objbench/objbench/internal/usage"
)

func TestShrink(t *testing.T) {
	t.Parallel()
	values := []float64{10, 12, 14, 16, 18, 20, 22}
	v := variance(values)
	for _, c := range []struct {
		name    string
		noise   float64
		wantVar float64
	}{{"no noise", 0, v}, {"half the variance is noise", v / 2, v / 2}, {"all noise", 2 * v, 0}} {
		got := shrink(values, c.noise)
		if math.Abs(variance(got)-c.wantVar) > 1e-9 || got[3] != 16 {
			t.Errorf("%s: variance %.3f (median %g), want %.3f around the median 16", c.name, variance(got), got[3], c.wantVar)
		}
	}
}

func TestTLSVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"TLS1.3": "1.3", "TLS 1.2": "1.2", "1.3": "1.3", "tlsv1.2": "1.2"} {
		if got := tlsVersion(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func profile(rtt, get50 float64) *twin.Measured {
	pct := make([]float64, 101)
	for i := range pct {
		pct[i] = get50 + float64(i-50)/10
	}
	return &twin.Measured{Schema: twin.MeasuredSchema, Network: twin.MeasuredNetwork{RTTms: rtt, PlateauMBps: 50},
		Service:    []twin.ServiceClass{{Op: "get", SizeBytes: 1024, Count: 10, P50ms: get50, P99ms: pct[99], PercentilesMs: pct}},
		Throughput: []twin.ThroughputPoint{{SizeBytes: 1 << 20, MBps: 20}}}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	rows := Compare(profile(20, 10), profile(21, 10.5), DefaultTolerances)
	byName := map[string]Row{}
	for _, r := range rows {
		byName[r.Quantity] = r
	}
	if r := byName["round trip (TCP connect p50)"]; !r.Pass || r.Tolerance != 3 {
		t.Errorf("21 ms against 20 ms: %+v, want within 10%% + 1 ms", r)
	}
	if r := byName["warm small GET, first byte (round trip + service p50)"]; r.A != 30 || r.B != 31.5 {
		t.Errorf("warm small GET: %+v", r)
	}
	// 10 ms more round trip: the round trip and the warm first bytes (p50
	// and p99) are out; the service time alone is not checked.
	if n := Failed(Compare(profile(20, 10), profile(30, 10), DefaultTolerances)); n != 3 {
		t.Errorf("30 ms against 20 ms: %d rows failed, want 3", n)
	}
}

func TestSaveAndComparePair(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if err := Save(context.Background(), nil, profile(20, 10), a); err != nil {
		t.Fatal(err)
	}
	if err := Save(context.Background(), nil, profile(80, 12), b); err != nil {
		t.Fatal(err)
	}
	rows, ok, err := ComparePair([]string{a, b})
	if !ok || err != nil || rows[0].B != 80 {
		t.Fatalf("two profiles: ok %v, %v, %+v", ok, err, rows)
	}
	if _, ok, _ := ComparePair([]string{"20261124T2000", "20261124T2010"}); ok {
		t.Error("two run ids taken for profiles")
	}
	other := filepath.Join(dir, "other.json")
	_ = os.WriteFile(other, []byte(`{"schema":"objbench/v1"}`), 0o644)
	if _, ok, err := ComparePair([]string{a, other}); !ok || err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("a profile and another document: ok %v, %v", ok, err)
	}
	if err := Save(context.Background(), nil, profile(1, 1), "s3://bucket/"); err == nil {
		t.Error("a bucket URL without an object name: no error")
	}
}

func TestPlateauRate(t *testing.T) {
	t.Parallel()
	sizes := []int64{64 << 10, 1 << 20, 8 << 20}
	// 25 MB/s once open, and 40 ms of window opening in every body.
	open := func(size int64) float64 { return 40 + float64(size)/25e3 }
	for _, c := range []struct {
		name    string
		sizes   []int64
		fastest []float64
		want    float64
	}{
		{"the window's opening cancels out", sizes, []float64{open(sizes[0]), open(sizes[1]), open(sizes[2])}, 25},
		{"one size: its own rate", sizes[2:], []float64{open(sizes[2])}, float64(sizes[2]) / 1e3 / open(sizes[2])},
		{"the larger body no slower: its own rate", sizes[1:], []float64{300, 200}, float64(sizes[2]) / 1e3 / 200},
		{"a marginal rate above twice the body's is noise", sizes[1:], []float64{330, 340}, float64(sizes[2]) / 1e3 / 340},
		{"none measured", sizes[2:], []float64{0}, 0},
	} {
		if got := plateauRate(c.sizes, c.fastest); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %.3f MB/s, want %.3f", c.name, got, c.want)
		}
	}
}

// TestSettingsCheck: without --save-profile a calibration flag the user
// gave is refused (it would be ignored), the defaults are not; with it,
// more than one target and sizes calibration cannot write are refused,
// and the sizes come back parsed. Every refusal is a usage error.
func TestSettingsCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                   string
		save                   string
		targets                int
		changed                []string
		service, stream        string
		wantService, wantSizes []int64 // when no error
		err                    string  // "" no error
	}{
		{name: "probe: defaults", service: "1KiB", stream: "bogus"},
		{name: "probe: a setting given", changed: []string{"count", "idle"}, err: "--idle is a calibration setting: it needs --save-profile FILE"},
		{name: "probe: in the flags' order", changed: []string{"stream-sizes", "budget"}, err: "--budget is a calibration setting: it needs --save-profile FILE"},
		{name: "calibrate", save: "p.json", targets: 1, changed: []string{"budget"}, service: "1KiB,1MiB", stream: "64KiB,8MiB",
			wantService: []int64{1 << 10, 1 << 20}, wantSizes: []int64{64 << 10, 8 << 20}},
		{name: "calibrate the lab", save: "p.json", service: "1KiB", stream: "1MiB", wantService: []int64{1 << 10}, wantSizes: []int64{1 << 20}},
		{name: "two targets", save: "p.json", targets: 2, service: "1KiB", stream: "1MiB", err: "--save-profile calibrates one TARGET, got 2"},
		{name: "service sizes", save: "p.json", service: "bogus", stream: "1MiB", err: `--service-sizes "bogus": bad size`},
		{name: "a service size twice", save: "p.json", service: "1KiB,1KiB", stream: "1MiB", err: "--service-sizes: 1KiB is given twice"},
		{name: "stream sizes", save: "p.json", service: "1KiB", stream: "0", err: "--stream-sizes: 0B: use 1B to 256MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Settings{Save: c.save}
			err := s.Check(c.targets, func(f string) bool { return slices.Contains(c.changed, f) }, c.service, c.stream)
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) || !usage.Is(err) {
					t.Fatalf("err %v (usage %v), want a usage error %q", err, usage.Is(err), c.err)
				}
				return
			}
			if err != nil || fmt.Sprint(s.ServiceSizes, s.Sizes) != fmt.Sprint(c.wantService, c.wantSizes) {
				t.Errorf("sizes %v %v, %v; want %v %v", s.ServiceSizes, s.Sizes, err, c.wantService, c.wantSizes)
			}
		})
	}
}

func TestSamplesOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		counts []int
		want   int
	}{{nil, 0}, {[]int{50, 48}, 50}, {[]int{400}, 400}, {[]int{3}, 0}} {
		m := &twin.Measured{}
		for _, n := range c.counts {
			m.Service = append(m.Service, twin.ServiceClass{Count: n})
		}
		if got := samplesOf(m); got != c.want {
			t.Errorf("counts %v: %d, want %d", c.counts, got, c.want)
		}
	}
}
