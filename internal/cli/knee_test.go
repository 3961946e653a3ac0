package cli

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// kneeDoc is what the knee's tests read of a run document.
type kneeDoc struct {
	Results []struct {
		Op            string           `json:"op"`
		Count         int64            `json:"count"`
		Errors        int64            `json:"errors"`
		ErrorsByClass map[string]int64 `json:"errors_by_class"`
		RateSteps     []struct {
			OfferedOpsPerS    float64          `json:"offered_ops_per_s"`
			GoodputOpsPerS    float64          `json:"goodput_ops_per_s"`
			ThrottledShare    float64          `json:"throttled_share"`
			Throttled         int64            `json:"throttled"`
			Retries           int64            `json:"retries"`
			ThrottledByPrefix map[string]int64 `json:"throttled_by_prefix"`
		} `json:"rate_steps"`
		Knee *struct {
			Found             bool    `json:"found"`
			RateOpsPerS       float64 `json:"rate_ops_per_s"`
			GoodputOpsPerS    float64 `json:"goodput_ops_per_s"`
			HotPrefix         string  `json:"hot_prefix"`
			ThrottledPrefixes int     `json:"throttled_prefixes"`
		} `json:"knee"`
	} `json:"results"`
	Findings []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"findings"`
}

// runKnee runs a stepped open loop of 1 KiB GETs on the lab with args and
// returns its exit code, document and stderr.
func runKnee(t *testing.T, args ...string) (int, kneeDoc, string) {
	t.Helper()
	base := []string{"run", "--no-save", "--json", "-q", "--workload", "mixed", "--mix", "get=100", "--keys", "40", "--sizes", "1KiB"}
	code, stdout, stderr := runCLI(t, context.Background(), append(base, args...)...)
	var d kneeDoc
	if code == 0 || code == 1 {
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatalf("exit %d: %v: %s", code, err, stderr)
		}
	}
	return code, d, stderr
}

// A run keeps going through throttling: throttled answers are counted by
// class and in each rate step, never fatal; only a --threshold on errors
// makes it fail. The SDK's retries are counted per step.
func TestThrottledRunKeepsGoing(t *testing.T) {
	t.Parallel()
	args := []string{"--limit", "s3:get=40/s", "--rate", "20,80", "--step", "500ms", "--duration", "1s"}
	code, d, stderr := runKnee(t, args...)
	if code != 0 || len(d.Results) != 1 {
		t.Fatalf("exit %d (want 0: throttling is not a failure), %d results: %s", code, len(d.Results), stderr)
	}
	r := d.Results[0]
	if r.ErrorsByClass["throttled"] == 0 || r.ErrorsByClass["throttled"] != r.Errors || r.Count == 0 || len(r.RateSteps) != 2 {
		t.Fatalf("count %d, errors %v, %d rate steps: want throttled errors only, two steps", r.Count, r.ErrorsByClass, len(r.RateSteps))
	}
	if last := r.RateSteps[1]; last.Throttled == 0 || last.ThrottledByPrefix == nil {
		t.Errorf("the last step's throttled answers are not counted by prefix: %+v", last)
	}
	if code, _, stderr := runKnee(t, append(args, "--threshold", "errors<1%")...); code != 1 || !strings.Contains(stderr, "FAIL") {
		t.Errorf("a threshold on errors: exit %d, stderr %q; want 1 and FAIL", code, stderr)
	}
	// With SDK retries the throttled answers are retried, and counted (a
	// retry the run's end cut short among them).
	code, d, stderr = runKnee(t, append(args, "--max-attempts", "3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var retries int64
	for _, s := range d.Results[0].RateSteps {
		retries += s.Retries
	}
	if retries == 0 {
		t.Errorf("no retries counted with --max-attempts 3 under throttling: %+v", d.Results[0].RateSteps)
	}
}

// TestRampKnee: a lab limited to get=100/s per prefix; a ramp of rate
// steps finds its knee within ±10% of 100/s, and keys over four prefixes
// move it to within ±10% of 400/s. (Issue 37 asks for 200/s and 800/s; on
// a 2-core machine shared with the lab's servers 1600/s offered is out of
// the client's reach, so both are scaled by a half.) A timing test.
func TestRampKnee(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: run without -race")
	}
	for _, tc := range []struct {
		prefixes string
		rates    string
		want     float64
	}{
		{"1", "50,100,200,400", 100},
		{"4", "100,200,400,800", 400},
	} {
		code, d, stderr := runKnee(t, "--limit", "s3:get=100/s", "--prefixes", tc.prefixes, "--rate", tc.rates, "--step", "1s",
			"--duration", "4s")
		if code != 0 || len(d.Results) != 1 {
			t.Fatalf("prefixes %s: exit %d: %s", tc.prefixes, code, stderr)
		}
		r := d.Results[0]
		for _, s := range r.RateSteps {
			t.Logf("prefixes %s: offered %4.0f/s goodput %6.1f/s throttled %5.1f%%", tc.prefixes, s.OfferedOpsPerS, s.GoodputOpsPerS, 100*s.ThrottledShare)
		}
		k := r.Knee
		if k == nil || !k.Found {
			t.Fatalf("prefixes %s: no knee: %+v", tc.prefixes, k)
		}
		t.Logf("prefixes %s: knee %.1f/s, goodput settled at %.1f/s, hot prefix %s of %d", tc.prefixes, k.RateOpsPerS, k.GoodputOpsPerS, k.HotPrefix, k.ThrottledPrefixes)
		if math.Abs(k.RateOpsPerS-tc.want) > 0.1*tc.want {
			t.Errorf("prefixes %s: knee at %.1f/s, want %.0f/s ± 10%%", tc.prefixes, k.RateOpsPerS, tc.want)
		}
		n := 1
		if tc.prefixes == "4" {
			n = 4
		}
		if k.ThrottledPrefixes != n || !strings.HasSuffix(k.HotPrefix, "mix/") {
			t.Errorf("prefixes %s: hot prefix %q of %d throttled, want one of %d", tc.prefixes, k.HotPrefix, k.ThrottledPrefixes, n)
		}
		found := false
		for _, f := range d.Findings {
			found = found || f.ID == "throttling-knee" && strings.Contains(f.Text, "pushed back at ~") && strings.Contains(f.Text, k.HotPrefix)
		}
		if !found {
			t.Errorf("prefixes %s: no throttling-knee finding naming %s: %+v", tc.prefixes, k.HotPrefix, d.Findings)
		}
	}
}
