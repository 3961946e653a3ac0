package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestThresholdsEveryCommand: run, strategies, probe and explain take
// --threshold; a bad expression is a usage error (exit 2) before anything
// runs, and after a run each threshold is printed with its measured value,
// kept in the JSON, and a failure exits 1. The limits are counts, not
// times: nothing here depends on the machine's speed.
func TestThresholdsEveryCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "results.db")
	_, noCurl := exec.LookPath("curl")
	// explain runs curl for one GET of a missing object: one request, one error.
	curl := []string{"--", "sh", "-c", `curl -sS -o /dev/null "$AWS_ENDPOINT_URL/objbench/none"`}
	for _, tc := range []struct {
		cmd       []string
		bad       string
		pass      string
		fail      string
		trailing  []string
		needsCurl bool
	}{
		{[]string{"run", "lab", "--workload", "latency", "--gets", "5", "--op-sizes", "0", "--op-count", "2", "-q"},
			"get.ttfb<1ms", "get.count>=5", "put.count>2", nil, false},
		{[]string{"strategies", "lab", "--rtt", "1ms", "--objects", "3", "--size", "0", "-q"},
			"http3.put.p50<1", "http2.put.connections<=1", "sdk-default.put.connections<3", nil, false},
		{[]string{"probe", "lab", "--count", "3"}, "errors<1ms", "get.count>=3", "get.reused>100%", nil, false},
		{[]string{"explain", "local", "--apis", "s3"}, "get.ttfb.p99<1ms", "explain.requests>=1", "errors<1", curl, true},
	} {
		name := tc.cmd[0]
		args := func(th ...string) []string {
			a := append([]string{"--db", db}, tc.cmd...)
			a = append(a, "--json")
			for _, e := range th {
				a = append(a, "--threshold", e)
			}
			return append(a, tc.trailing...)
		}
		code, out, errOut := runCLI(t, ctx, args(tc.pass, tc.bad)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.bad) {
			t.Errorf("%s --threshold %q: exit %d, stdout %q, stderr %q; want a usage error naming it, before any output", name, tc.bad, code, out, errOut)
		}
		if tc.needsCurl && noCurl != nil {
			continue // no curl: nothing would reach the lab
		}
		code, out, errOut = runCLI(t, ctx, args(tc.pass, tc.fail)...)
		var d struct {
			Thresholds []struct {
				Expr     string  `json:"expr"`
				Pass     bool    `json:"pass"`
				Measured float64 `json:"measured"`
			} `json:"thresholds"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("%s: exit %d, stdout is not JSON: %v\n%s", name, code, err, errOut)
		}
		if code != 1 || !strings.Contains(errOut, "threshold "+tc.pass+": pass, measured") ||
			!strings.Contains(errOut, "threshold "+tc.fail+": FAIL, measured") || !strings.Contains(errOut, "1 of 2 thresholds failed") {
			t.Errorf("%s: exit %d, want 1 with both thresholds printed: %s", name, code, errOut)
		}
		if len(d.Thresholds) != 2 || d.Thresholds[0].Expr != tc.pass || !d.Thresholds[0].Pass || d.Thresholds[1].Pass {
			t.Errorf("%s: JSON thresholds %+v", name, d.Thresholds)
		}
	}
}
