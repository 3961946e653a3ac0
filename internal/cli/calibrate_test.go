package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/twin"
)

// TestCalibrateFlow is the whole flow on the lab, end to end
// through the command line: probe --save-profile measures a lab with a
// known link and service time, compare lines two profiles up, and lab
// check --profile starts the twin and measures it against its profile.
func TestCalibrateFlow(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: run without -race (scripts/test's timing step)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	near, far := filepath.Join(dir, "near.json"), filepath.Join(dir, "far.json")
	for _, c := range []struct {
		file string
		args []string
	}{{near, []string{"--rtt", "4ms", "--service-time", "5ms"}}, {far, []string{"--rtt", "30ms", "--jitter", "2ms", "--service-time", "5ms"}}} {
		args := append([]string{"probe", "lab:same-region", "--save-profile", c.file, "--count", "15", "--budget", "40s", "--no-save"}, c.args...)
		code, out, errOut := runCLI(t, ctx, args...)
		if code != 0 || !strings.Contains(out, "Profile written to "+c.file) {
			t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	m, err := twin.LoadMeasured(far)
	if err != nil {
		t.Fatal(err)
	}
	// The file says what was measured, and never a credential.
	raw, _ := os.ReadFile(far)
	if strings.Contains(string(raw), "objbench-lab-secret") || m.Target.API != "s3" || !m.Network.TLS || len(m.Service) != 7 {
		t.Errorf("profile: api %q, TLS %v, %d service classes\n%.400s", m.Target.API, m.Network.TLS, len(m.Service), raw)
	}
	// The round trip is the link's (30 ms) plus the machine's own connect
	// time (1-3 ms here, up to 10 ms with the machine loaded by other work);
	// the service time the lab's 5 ms plus its own time per exchange.
	if m.Network.RTTms < 29 || m.Network.RTTms > 45 {
		t.Errorf("round trip %.2f ms on a 30 ms link", m.Network.RTTms)
	}
	if p := m.Service[0].P50ms; p < 3 || p > 15 {
		t.Errorf("GET service p50 %.2f ms with a 5 ms service time", p)
	}
	code, out, errOut := runCLI(t, ctx, "compare", near, far, "--json")
	var doc struct {
		Cmp struct {
			Rows []struct {
				Quantity string
				A, B     float64
			}
		} `json:"profile_comparison"`
	}
	cmp := &doc.Cmp
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(cmp.Rows) == 0 {
		t.Fatalf("compare: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if r := cmp.Rows[0]; !strings.HasPrefix(r.Quantity, "round trip") || r.B-r.A < 20 {
		t.Errorf("compare's first row: %+v, want the round trips 26 ms apart", r)
	}
	code, out, errOut = runCLI(t, ctx, "lab", "check", "--profile", far)
	t.Logf("lab check --profile:\n%s", out)
	if !strings.Contains(out, "service get 1KiB p50") || (code != 0 && code != 1) {
		t.Errorf("lab check --profile: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCalibrateSizes: --service-sizes and --stream-sizes choose the
// service classes and the one-stream rates a profile holds; bad lists, and
// either flag without --save-profile, are usage errors.
func TestCalibrateSizes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "sizes.json")
	args := []string{"probe", "lab:same-region", "--rtt", "1ms", "--save-profile", file, "--count", "5", "--budget", "60s", "--no-save",
		"--service-sizes", "1KiB,64KiB,1MiB", "--stream-sizes", "64KiB,256KiB"}
	if code, out, errOut := runCLI(t, ctx, args...); code != 0 {
		t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	m, err := twin.LoadMeasured(file)
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string][]int64{}
	for _, c := range m.Service {
		classes[c.Op] = append(classes[c.Op], c.SizeBytes)
	}
	want := []int64{1 << 10, 64 << 10, 1 << 20}
	for _, op := range []string{"get", "put"} {
		if got := classes[op]; !slices.Equal(got, want) {
			t.Errorf("%s classes %v, want %v", op, got, want)
		}
	}
	var streams []int64
	for _, p := range m.Throughput {
		streams = append(streams, p.SizeBytes)
	}
	if want := []int64{64 << 10, 256 << 10}; !slices.Equal(streams, want) {
		t.Errorf("one-stream sizes %v, want %v", streams, want)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--service-sizes", "0"}, "--service-sizes: 0B: use 1B to 256MiB"},
		{[]string{"--stream-sizes", "1MiB,1MiB"}, "--stream-sizes: 1MiB is given twice"},
		{[]string{"--service-sizes", "lots"}, `--service-sizes "lots"`},
	} {
		args := append([]string{"probe", "lab:local", "--save-profile", filepath.Join(t.TempDir(), "x.json")}, tc.args...)
		if code, _, errOut := runCLI(t, ctx, args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	if code, _, errOut := runCLI(t, ctx, "probe", "lab:local", "--service-sizes", "1KiB"); code != 2 || !strings.Contains(errOut, "needs --save-profile") {
		t.Errorf("--service-sizes without --save-profile: exit %d, %q", code, errOut)
	}
}
