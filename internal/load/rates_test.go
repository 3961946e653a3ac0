package load

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
)

// bucketLimiter is a store's request-rate limit in a test: a token bucket
// per prefix (the key up to its last "/"), answering throttled past it.
type bucketLimiter struct {
	rate, burst float64
	mu          sync.Mutex
	tokens      map[string]float64
	last        map[string]time.Time
}

func newBucketLimiter(rate, burst float64) *bucketLimiter {
	return &bucketLimiter{rate: rate, burst: burst, tokens: map[string]float64{}, last: map[string]time.Time{}}
}

func (l *bucketLimiter) allow(key string) bool {
	p := keyPrefix(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	tok, seen := l.tokens[p]
	if !seen {
		tok = l.burst
	} else {
		tok = min(l.burst, tok+now.Sub(l.last[p]).Seconds()*l.rate)
	}
	l.last[p] = now
	if tok < 1 {
		l.tokens[p] = tok
		return false
	}
	l.tokens[p] = tok - 1
	return true
}

func (l *bucketLimiter) do(ctx context.Context, b storage.Backend, key string) error {
	if !l.allow(key) {
		return &storage.Error{Op: "get", Key: key, Status: 503, Code: "SlowDown", Class: storage.ClassThrottled}
	}
	return nil
}

// Each rate of a stepped open loop is a row of its own: what it offered,
// what succeeded in its later half, and the throttled answers by prefix.
// Keys over two prefixes double what a per-prefix limit lets through.
func TestRateStepsUnderLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		prefixes int
		// the last step's throttled share and settled goodput
		minShare, maxShare float64
		goodput            float64
	}{
		{"one prefix", 1, 0.3, 0.7, 100},
		{"two prefixes", 2, 0, 0.1, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lim := newBucketLimiter(100, 3)
			r := &Runner{NewClient: memClients("rates")}
			step := 600 * time.Millisecond
			st := &Step{Op: "get", Concurrency: 8, Requests: math.MaxInt, Duration: 3 * step,
				Key:   func(i int) string { return "p" + strconv.Itoa(i%tc.prefixes) + "/k" + strconv.Itoa(i) },
				Pacer: &OpenLoop{Profile: RateProfile{Rates: []float64{50, 100, 200}, Step: step}},
				Do:    lim.do}
			res, err := r.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.RateSteps) != 3 {
				t.Fatalf("%d rate steps, want 3: %+v", len(res.RateSteps), res.RateSteps)
			}
			for k, want := range []float64{50, 100, 200} {
				row := res.RateSteps[k]
				if math.Abs(row.Offered-want) > 1e-6 || row.From != time.Duration(k)*step {
					t.Errorf("row %d offered %g from %s, want %g from %s", k, row.Offered, row.From, want, time.Duration(k)*step)
				}
				if row.Requests != row.Count+row.Errors {
					t.Errorf("row %d: %d requests for %d operations (one each without retries)", k, row.Requests, row.Count+row.Errors)
				}
			}
			if first := res.RateSteps[0]; first.Throttled != 0 || first.Count < 25 {
				t.Errorf("50/s under a limit of 100/s: %+v", first)
			}
			last := res.RateSteps[2]
			share := float64(last.Throttled) / float64(last.Requests)
			half := (last.To - last.SettledFrom).Seconds()
			goodput := float64(last.SettledCount) / half
			t.Logf("last step: %d ok, %d throttled of %d (share %.2f), settled goodput %.0f/s, by prefix %v",
				last.Count, last.Throttled, last.Requests, share, goodput, last.ThrottledByPrefix)
			if share < tc.minShare || share > tc.maxShare {
				t.Errorf("throttled share %.2f, want %.2f-%.2f", share, tc.minShare, tc.maxShare)
			}
			if math.Abs(goodput-tc.goodput) > 0.2*tc.goodput {
				t.Errorf("settled goodput %.0f/s, want %.0f/s ± 20%%", goodput, tc.goodput)
			}
			if last.Throttled > 0 {
				var sum int64
				for p, n := range last.ThrottledByPrefix {
					if p != "p0/" && p != "p1/" {
						t.Errorf("throttled prefix %q, want p0/ or p1/", p)
					}
					sum += n
				}
				if sum != last.Throttled || last.ThrottledOps != last.Errors {
					t.Errorf("prefixes add up to %d of %d throttled; %d throttled ops of %d errors", sum, last.Throttled, last.ThrottledOps, last.Errors)
				}
			}
		})
	}
}

// A ramp is cut into rows of --step (a tenth of it without), and the rate
// held after it is one more row.
func TestRateStepsOfRamp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		step     time.Duration
		duration time.Duration
		rows     int
	}{
		{0, 300 * time.Millisecond, 10},
		{0, 400 * time.Millisecond, 11},
		{100 * time.Millisecond, 400 * time.Millisecond, 4},
	} {
		p, err := ParseRate("100:300:300ms", tc.step)
		if err != nil {
			t.Fatal(err)
		}
		st := &Step{Op: "get", Requests: math.MaxInt, Duration: tc.duration, Pacer: &OpenLoop{Profile: p}}
		rr := newRateRows(st)
		if rr == nil || len(rr.starts) != tc.rows {
			t.Fatalf("step %s duration %s: %v, want %d rows", tc.step, tc.duration, rr, tc.rows)
		}
	}
	if rr := newRateRows(&Step{Op: "get", Requests: 10, Pacer: &OpenLoop{Profile: RateProfile{Rates: []float64{100}}}}); rr != nil {
		t.Errorf("one rate has rows: %+v", rr)
	}
}

// --prefixes spreads the objects' keys over that many prefixes, object i
// under p(i mod N); one prefix keeps the keys as they were.
func TestKeysSpreadOverPrefixes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prefixes int
		want     []string
	}{
		{0, []string{"run/lat/1KiB/0", "run/lat/1KiB/1", "run/lat/1KiB/4", "run/lat/1KiB/0"}},
		{1, []string{"run/lat/1KiB/0", "run/lat/1KiB/1", "run/lat/1KiB/4", "run/lat/1KiB/0"}},
		{4, []string{"run/p0/lat/1KiB/0", "run/p1/lat/1KiB/1", "run/p0/lat/1KiB/4", "run/p0/lat/1KiB/0"}},
	} {
		s := &Session{Prefix: "run/", Opts: Options{Prefixes: tc.prefixes}}
		key := s.keys("lat/1KiB/", 5)
		for i, n := range []int{0, 1, 4, 5} {
			if got := key(n); got != tc.want[i] {
				t.Errorf("prefixes %d: key(%d) = %q, want %q", tc.prefixes, n, got, tc.want[i])
			}
		}
		m := NewMix(MixConfig{Ops: []Weighted[string]{{"get", 100}}, Sizes: []Weighted[int64]{{1024, 1}}, Keys: 8, Prefixes: tc.prefixes}, "run/")
		want, list := "run/mix/6", "run/mix/"
		if tc.prefixes == 4 {
			want, list = "run/p2/mix/6", "run/"
		}
		if m.Key(6) != want || m.listPrefix() != list {
			t.Errorf("prefixes %d: mix key %q, list %q; want %q, %q", tc.prefixes, m.Key(6), m.listPrefix(), want, list)
		}
	}
	for _, n := range []int{-1, MaxPrefixes + 1} {
		f := RunSettings{Workloads: "latency", Objects: 1, ObjectSize: "1KiB", Gets: 1, LatencyConcurrency: 1, OpSizes: "1KiB",
			OpCount: 1, Sizes: "1KiB", SizeCount: 1, Levels: "1", LevelSize: "1KiB", MaxAttempts: 1, Prefixes: n}
		if _, err := f.Options(); err == nil || !strings.Contains(err.Error(), "Prefixes must be") {
			t.Errorf("--prefixes %d: %v, want an error naming it", n, err)
		}
	}
}

// An operation the step's end cut while its SDK waited to retry a
// throttled answer: neither success nor error, but its answers count, and
// the retry it was waiting for.
func TestRateStepsCut(t *testing.T) {
	t.Parallel()
	rr := newRateRows(&Step{Op: "get", Requests: math.MaxInt, Duration: 2 * time.Second,
		Pacer: &OpenLoop{Profile: RateProfile{Rates: []float64{10, 20}, Step: time.Second}}})
	rr.cut("get", 1500*time.Millisecond, &nettrace.Sample{Key: "a/b", Status: 503, Requests: 2, Throttled: 2, Retries: 1})
	rr.cut("get", 1600*time.Millisecond, &nettrace.Sample{Key: "a/c", Requests: 1}) // cut in flight: no answer yet
	rows := rr.result("get", 2*time.Second)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	if r := rows[1]; r.Count != 0 || r.Errors != 0 || r.Requests != 3 || r.Throttled != 2 || r.Retries != 2 || r.ThrottledByPrefix["a/"] != 2 {
		t.Errorf("row 1: %+v", r)
	}
}
