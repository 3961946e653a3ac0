package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// retryRow is one row of bench/retries.sh --json.
type retryRow struct {
	Library        string `json:"library"`
	Mode           string `json:"mode"`
	Error          string `json:"error"`
	Log            string `json:"log"`
	ExitCode       int    `json:"exit_code"`
	PolicyAttempts *int   `json:"policy_attempts"`
	Adaptive       bool   `json:"adaptive"`
	Throttled      int    `json:"throttled"`
	GiveUps        int    `json:"give_ups"`
	ExplainGiveUps int    `json:"explain_give_ups"`
	MaxAttempts    int    `json:"max_attempts"`
	Retries        map[string]struct {
		N      int        `json:"n"`
		Mean   float64    `json:"mean_s"`
		Min    float64    `json:"min_s"`
		Max    float64    `json:"max_s"`
		Bounds [2]float64 `json:"bounds_s"`
	} `json:"retries"`
}

// retrySlack is what a gap before a retry holds beyond the SDK's sleep:
// the answer's parsing, the retry's signing, a thread's turn among 128 on
// a loaded machine (Python's once took 0.25 s past its 1 s bound with
// 128 threads).
const retrySlack = 0.5

// TestRetryPolicies runs a few libraries of bench/retries.sh (uploads at
// twice a 50 writes/s limit, default retry modes) and holds what each did to
// its documented policy: no object took more attempts than the policy
// allows; every gap before a retry lies within the policy's backoff bounds
// for that retry (the adaptive modes' limiter may only add to them); the
// first retries' mean is a full jitter's (half the bound), which a wrong
// base (50 ms instead of 1 s) or an honoured Retry-After would fail; the
// give-ups explain counts are the program's. About a minute; Azure (15 s
// and more per retry) is the bench's alone.
func TestRetryPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the libraries against the lab")
	}
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	root, objbench := compareEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// 32 in flight, not the bench's 128: enough to be throttled, few
	// enough that the client's own CPU (Node's one event loop, Python's
	// GIL) adds little to the gaps on a loaded machine.
	cmd := exec.CommandContext(ctx, "bench/retries.sh", "--json", "--rates", "100", "--objects", "100", "--workers", "32",
		"--only", `^(python-boto3|node-s3|go-awssdk) standard|python-gcs`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "OBJBENCH="+objbench)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var rows []retryRow
	if jerr := json.Unmarshal(out.Bytes(), &rows); jerr != nil || err != nil {
		t.Fatalf("bench/retries.sh: %v, %v\n%s", err, jerr, tail(errb.String(), 20))
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4 (boto3, Node.js, Go, GCS)", len(rows))
	}
	for _, r := range rows {
		t.Run(r.Library+" "+r.Mode, func(t *testing.T) {
			if r.Error != "" || r.ExitCode != 0 {
				logText, _ := os.ReadFile(r.Log)
				t.Fatalf("%s (exit %d)\n%s", r.Error, r.ExitCode, tail(string(logText), 20))
			}
			if r.Throttled < 10 {
				t.Fatalf("%d throttled answers at twice the limit: too few to judge", r.Throttled)
			}
			if r.PolicyAttempts != nil && r.MaxAttempts > *r.PolicyAttempts {
				t.Errorf("an object took %d attempts; the policy allows %d", r.MaxAttempts, *r.PolicyAttempts)
			}
			if r.GiveUps != r.ExplainGiveUps {
				t.Errorf("the program gave up on %d objects, explain counts %d", r.GiveUps, r.ExplainGiveUps)
			}
			for i, g := range r.Retries {
				lo, hi := g.Bounds[0], g.Bounds[1]
				if g.Min < lo-0.01 || (!r.Adaptive && g.Max > hi+retrySlack) {
					t.Errorf("retry %s: gaps %.3f-%.3f s (%d), the policy's backoff %.3f-%.3f s", i, g.Min, g.Max, g.N, lo, hi)
				}
				if n, _ := strconv.Atoi(i); n == 1 && lo == 0 && g.N >= 20 && (g.Mean < 0.3*hi || g.Mean > 0.7*hi+retrySlack/4) {
					t.Errorf("first retries: mean gap %.3f s over %d, want about half the bound %.3f s (full jitter)", g.Mean, g.N, hi)
				}
			}
			t.Logf("%d throttled, most attempts %d, give-ups %d, retries %s", r.Throttled, r.MaxAttempts, r.GiveUps, strings.TrimSpace(retriesText(r)))
		})
	}
}

func retriesText(r retryRow) string {
	var b strings.Builder
	for i := 1; i <= len(r.Retries); i++ {
		if g, ok := r.Retries[strconv.Itoa(i)]; ok {
			b.WriteString(" " + strconv.Itoa(i) + ": " + strconv.Itoa(g.N) + " mean " + strconv.FormatFloat(g.Mean, 'f', 3, 64) + " s")
		}
	}
	return b.String()
}
