package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
)

// limited are the rows a store limited to limit/s per prefix gives a
// schedule of rates over n prefixes (evenly loaded), random share noise
// of the lab's fault added.
func limited(limit float64, n int, fault float64, rates ...float64) []document.RateStep {
	var out []document.RateStep
	for _, r := range rates {
		good := min(r, limit*float64(n)) * (1 - fault)
		share := 1 - good/r
		row := document.RateStep{OfferedOpsPerS: r, GoodputOpsPerS: good, Requests: int64(r), Throttled: int64(r - good), ThrottledShare: share}
		if row.Throttled > 0 {
			row.ThrottledByPrefix = map[string]int64{}
			for p := range n {
				row.ThrottledByPrefix["run/p"+string(rune('0'+p))+"/"] = row.Throttled / int64(n)
			}
			row.ThrottledByPrefix["run/p0/"] += row.Throttled % int64(n) // p0 the hottest
		}
		out = append(out, row)
	}
	return out
}

func TestFindKnee(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		rows     []document.RateStep
		found    bool
		step     int
		rate     float64
		goodput  float64
		carried  float64
		prefixes int
	}{
		{"limit 200 on one prefix", limited(200, 1, 0, 100, 200, 400, 800), true, 2, 200, 200, 200, 1},
		{"limit 200 on four prefixes", limited(200, 4, 0, 100, 200, 400, 800, 1600), true, 4, 800, 800, 800, 4},
		{"never pushed back", limited(1000, 1, 0, 100, 200, 400), false, 0, 0, 0, 400, 0},
		// 20% throttled at every rate: no rate where the store pushed back
		{"a fixed share throttled", limited(1e9, 1, 0.2, 100, 200, 400), false, 0, 0, 0, 0, 1},
		// the limit between two steps: the goodput it settled at says where
		{"limit between steps", limited(300, 1, 0, 100, 200, 400, 800), true, 2, 300, 300, 200, 1},
		// pushed back from the first step on: the share still grows with the rate
		{"limit below the first step", limited(50, 1, 0, 100, 200, 400), true, 0, 50, 50, 0, 1},
		{"one row", limited(50, 1, 0, 100), false, 0, 0, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := FindKnee(tc.rows)
			if len(tc.rows) < 2 {
				if k != nil {
					t.Fatalf("knee of one row: %+v", k)
				}
				return
			}
			if k.Found != tc.found || k.Step != tc.step || math.Abs(k.RateOpsPerS-tc.rate) > 1e-6 ||
				math.Abs(k.GoodputOpsPerS-tc.goodput) > 1e-6 || k.CarriedOpsPerS != tc.carried || k.ThrottledPrefixes != tc.prefixes {
				t.Errorf("knee %+v, want found %v step %d rate %g goodput %g carried %g prefixes %d",
					*k, tc.found, tc.step, tc.rate, tc.goodput, tc.carried, tc.prefixes)
			}
			if tc.prefixes > 0 && k.HotPrefix != "run/p0/" {
				t.Errorf("hot prefix %q, want run/p0/", k.HotPrefix)
			}
		})
	}
}

// One unlucky step between carried ones is not a knee.
func TestFindKneeIgnoresABlip(t *testing.T) {
	t.Parallel()
	rows := limited(1000, 1, 0, 100, 200, 400, 800)
	rows[1].GoodputOpsPerS, rows[1].ThrottledShare, rows[1].Throttled = 150, 0.25, 50
	if k := FindKnee(rows); k.Found {
		t.Errorf("a blip at 200/s between carried steps made a knee: %+v", *k)
	}
}

// The rows a load step measured: goodput over each row's later half, the
// throttled share of all exchanges, an op's share of a mix's rate.
func TestRateStepsGoodput(t *testing.T) {
	t.Parallel()
	rows := RateSteps([]load.RateStep{
		{Offered: 200, From: 0, To: 2 * time.Second, SettledFrom: time.Second, Count: 350, Errors: 50, Requests: 400, Throttled: 50,
			Bytes: 350 << 10, SettledCount: 150, SettledBytes: 150 << 10},
		// interrupted early in its later half: the whole row counts
		{Offered: 400, From: 2 * time.Second, To: 2100 * time.Millisecond, SettledFrom: 3 * time.Second, Count: 30, Requests: 40, Throttled: 10},
	}, 0.5)
	if r := rows[0]; r.OfferedOpsPerS != 100 || r.GoodputOpsPerS != 150 || math.Abs(r.GoodputMBPerS-150*1024/1e6) > 1e-9 || r.ThrottledShare != 0.125 {
		t.Errorf("row 0: %+v", r)
	}
	if r := rows[1]; math.Abs(r.GoodputOpsPerS-300) > 1e-6 || r.ThrottledShare != 0.25 {
		t.Errorf("row 1 (cut short): %+v", r)
	}
}

func TestKneeFinding(t *testing.T) {
	t.Parallel()
	rows := limited(200, 1, 0, 100, 200, 400, 800)
	doc := &document.Document{Results: []document.Result{{Workload: "mixed", Op: "get", SizeBytes: 1024, RateSteps: rows, Knee: FindKnee(rows)}}}
	fs := kneeRule(&Facts{Doc: doc})
	if len(fs) != 1 {
		t.Fatalf("findings %+v, want one", fs)
	}
	f := fs[0]
	for _, want := range []string{"pushed back at ~200/s", "on prefix run/p0/", "spread keys over 4 prefixes", "lower the rate below 200/s"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("finding %q lacks %q", f.Text, want)
		}
	}
	if f.ID != "throttling-knee" || f.Evidence["knee_ops_per_s"] != 200 || f.Evidence["prefixes_suggested"] != 4 {
		t.Errorf("finding %+v", f)
	}
	doc.Results[0].Knee = FindKnee(limited(1000, 1, 0, 100, 200))
	if fs := kneeRule(&Facts{Doc: doc}); len(fs) != 0 {
		t.Errorf("a finding without a knee: %+v", fs)
	}
}

// A client that cannot send the rate falls short with few throttled
// answers: not the store's knee, and not the goodput it settled at.
func TestFindKneeClientLimited(t *testing.T) {
	t.Parallel()
	rows := limited(200, 4, 0, 100, 200, 400, 800, 1600)
	rows[4].GoodputOpsPerS, rows[4].ThrottledShare, rows[4].Throttled = 141, 0.174, 278 // the client collapsed at 1600/s
	if k := FindKnee(rows); k.Found || k.CarriedOpsPerS != 800 {
		t.Errorf("a client that could not offer 1600/s made a knee: %+v", *k)
	}
	rows[4].Retries = 300 // the SDK's backoff held the workers: the store's doing
	if k := FindKnee(rows); !k.Found || k.Step != 4 {
		t.Errorf("a shortfall of retried throttled answers made no knee: %+v", *k)
	}
	rows = limited(200, 1, 0, 100, 200, 400, 800, 1600)
	rows[4].GoodputOpsPerS, rows[4].ThrottledShare = 127, 0.81 // throttled, and the client short of more still
	rows[2].GoodputOpsPerS = 191
	if k := FindKnee(rows); !k.Found || k.Step != 2 || k.GoodputOpsPerS != 191 || k.RateOpsPerS != 200 {
		t.Errorf("knee %+v, want step 2, goodput 191 (the median of 191, 200 and 127), rate 200 (carried)", *k)
	}
}
