package load

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
)

func TestParseRateBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		step time.Duration
		want string
	}{
		{"0", 0, "positive"},
		{"-5", 0, "positive"},
		{"abc", 0, "positive"},
		{"2000:100:60s", 0, "ends below its start"},
		{"100:2000", 0, "START:END:DURATION"},
		{"100:2000:0s", 0, "duration must be positive"},
		{"100,500", 0, "need Step"},
		{"100,0", time.Second, "positive"},
	} {
		if _, err := ParseRate(tc.in, tc.step); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRate(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

// The schedule's time of operation u inverts the offered count: the
// profile offers exactly u operations before the u-th is due.
func TestRateProfileSchedule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		step time.Duration
	}{{"500", 0}, {"100:2000:60s", 0}, {"100,500,1000", 30 * time.Second}, {"300:300:5s", 0}} {
		p, err := ParseRate(tc.in, tc.step)
		if err != nil {
			t.Fatal(err)
		}
		if q, err := ParseRate(p.String(), tc.step); err != nil || q.String() != p.String() {
			t.Errorf("String() = %q does not read back: %v", p.String(), err)
		}
		for _, u := range []float64{0, 1, 50, 1234, 5e4, 2e5} {
			if got := p.Expected(p.at(u)); math.Abs(got-u) > 1e-3*max(u, 1) {
				t.Errorf("%s: Expected(at(%g)) = %g", tc.in, u, got)
			}
		}
	}
	ramp, _ := ParseRate("100:2000:60s", 0)
	if r := ramp.RateAt(30 * time.Second); math.Abs(r-1050) > 1e-9 {
		t.Errorf("ramp at 30s = %g, want 1050", r)
	}
	steps, _ := ParseRate("100,500,1000", 30*time.Second)
	if r := steps.RateAt(45 * time.Second); r != 500 {
		t.Errorf("steps at 45s = %g, want 500", r)
	}
}

func TestPoissonGapsMeanRate(t *testing.T) {
	t.Parallel()
	o := &OpenLoop{Profile: RateProfile{Rates: []float64{1000}}, Arrivals: Poisson, Seed: 7}
	start := time.Unix(1000, 0)
	o.Start(start)
	var last time.Time
	for i := range 20000 {
		last = o.Intended(i)
	}
	if got := last.Sub(start).Seconds(); math.Abs(got-20) > 0.5 { // sd of the sum: sqrt(20000)/1000 = 0.14 s
		t.Errorf("20000 Poisson arrivals at 1000/s took %.2fs of schedule, want about 20s", got)
	}
}

// A stall of the service holds back every operation scheduled behind it:
// measured from the intended start they count it, from the send they do not.
func TestOpenLoopCorrectsCoordinatedOmission(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	r := &Runner{NewClient: memClients("open-co"), Interval: 50 * time.Millisecond}
	st := &Step{Op: "get", Concurrency: 1, Requests: 100, Key: func(i int) string { return fmt.Sprint(i) },
		Pacer: &OpenLoop{Profile: RateProfile{Rates: []float64{200}}},
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			if n.Add(1) == 20 {
				time.Sleep(200 * time.Millisecond) // 40 operations are due meanwhile
			}
			return nil
		}}
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if res.Uncorrected == nil {
		t.Fatal("no uncorrected summary in open loop")
	}
	t.Logf("p90 corrected %.1fms uncorrected %.1fms; late %d", res.Summary.TotalMs.P90, res.Uncorrected.TotalMs.P90, res.Late)
	if res.Summary.TotalMs.P90 < 50 || res.Uncorrected.TotalMs.P90 > 50 {
		t.Errorf("p90 corrected %.1fms (want > 50: ~40 ops wait up to 200ms), uncorrected %.1fms (want < 50)",
			res.Summary.TotalMs.P90, res.Uncorrected.TotalMs.P90)
	}
	if res.Late < 30 {
		t.Errorf("late %d, want the ~40 operations due during the stall", res.Late)
	}
	if _, ok := res.Histograms["total_uncorrected"]; !ok {
		t.Error("no uncorrected histogram stored")
	}
}

func TestOpenLoopDropsPastMaxLate(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	r := &Runner{NewClient: memClients("open-drop")}
	st := &Step{Op: "get", Concurrency: 1, Requests: 100, Key: func(i int) string { return fmt.Sprint(i) },
		Pacer: &OpenLoop{Profile: RateProfile{Rates: []float64{200}}, MaxLate: 20 * time.Millisecond},
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			if n.Add(1) == 10 {
				time.Sleep(200 * time.Millisecond)
			}
			return nil
		}}
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped < 30 || res.Summary.Count+res.Dropped != 100 {
		t.Errorf("dropped %d count %d: want ~36 dropped and every operation accounted for", res.Dropped, res.Summary.Count)
	}
}

// Every sample is in exactly one interval: the intervals add up to the
// step's histograms, counts and every quantile.
func TestIntervalsAddUpToStep(t *testing.T) {
	t.Parallel()
	r := &Runner{NewClient: memClients("intervals"), Interval: 10 * time.Millisecond}
	st := &Step{Op: "get", Concurrency: 3, Requests: 600, Key: func(i int) string { return fmt.Sprint(i) },
		Pacer: &OpenLoop{Profile: RateProfile{Rates: []float64{3000}}, Arrivals: Poisson},
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			time.Sleep(time.Duration(len(key)) * 100 * time.Microsecond)
			return nil
		}}
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Series) < 5 {
		t.Fatalf("%d intervals, want about 20", len(res.Series))
	}
	series, err := stats.DecodeSeries(res.Histograms[stats.SeriesMetric])
	if err != nil {
		t.Fatal(err)
	}
	var count int64
	for _, iv := range series {
		count += iv.Count
	}
	if count != res.Summary.Count || count != 600 {
		t.Errorf("intervals count %d, step %d", count, res.Summary.Count)
	}
	for _, m := range []string{"ttfb", "total"} {
		sum, err := stats.SumSeries(series, m)
		if err != nil {
			t.Fatal(err)
		}
		step, err := stats.DecodeHistogram(res.Histograms[m])
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Equal(step) {
			t.Errorf("%s: the intervals' sum differs from the step's histogram", m)
		}
		for _, q := range []float64{0, 50, 90, 99, 99.9, 100} {
			if a, b := sum.Quantile(q), step.Quantile(q); a != b {
				t.Errorf("%s p%g: intervals %.3f, step %.3f", m, q, a, b)
			}
		}
	}
}

// A step planned to outlast half of stats.MaxIntervals intervals keeps
// intervals of as many ticks as fit it there (the series' memory is
// bounded), says so (SeriesInterval), and still covers the whole step: the
// intervals follow one another and add up to it.
func TestLongStepSeriesBounded(t *testing.T) {
	t.Parallel()
	r := &Runner{NewClient: memClients("long-series"), Interval: 2 * time.Millisecond}
	st := &Step{Op: "get", Concurrency: 2, Requests: 600, Key: func(i int) string { return fmt.Sprint(i) },
		Pacer: &OpenLoop{Profile: RateProfile{Rates: []float64{1000}}}, // 600 ms planned: 300 ticks
		Do:    func(ctx context.Context, b storage.Backend, key string) error { return nil }}
	if got := planned(st); got != 600*time.Millisecond {
		t.Fatalf("planned %s, want 600ms", got)
	}
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	// About 150 intervals; fewer when the machine is loaded (a ticker drops
	// the ticks its reader misses), never more than half the cap.
	if res.SeriesInterval != 4*time.Millisecond || len(res.Series) > stats.MaxIntervals/2+2 || len(res.Series) == 0 {
		t.Fatalf("%d intervals of %s, want at most %d of 4ms", len(res.Series), res.SeriesInterval, stats.MaxIntervals/2+2)
	}
	var count int64
	for i, iv := range res.Series {
		count += iv.Count
		if i > 0 && iv.StartS != res.Series[i-1].EndS {
			t.Errorf("interval %d starts at %gs, the one before ends at %gs", i, iv.StartS, res.Series[i-1].EndS)
		}
	}
	if count != res.Summary.Count || count != 600 {
		t.Errorf("intervals count %d, step %d, want 600", count, res.Summary.Count)
	}
}

// planned: the step's duration, or the time its last open-loop operation
// is due, whichever is first; unknown in a closed loop bounded by count.
func TestPlanned(t *testing.T) {
	open := &OpenLoop{Profile: RateProfile{Rates: []float64{100}}}
	for _, tt := range []struct {
		name string
		st   Step
		want time.Duration
	}{
		{"closed loop, a count", Step{Requests: 1000}, 0},
		{"closed loop, a duration", Step{Requests: 1000, Duration: time.Minute}, time.Minute},
		{"open loop, a count", Step{Requests: 1000, Pacer: open}, 10 * time.Second},
		{"open loop, a shorter duration", Step{Requests: 1000, Duration: 5 * time.Second, Pacer: open}, 5 * time.Second},
	} {
		if got := planned(&tt.st); got != tt.want {
			t.Errorf("%s: planned %s, want %s", tt.name, got, tt.want)
		}
	}
}

func testMix(t *testing.T, mix, dist string, keys int) *Mix {
	t.Helper()
	ops, err := ParseMix(mix)
	if err != nil {
		t.Fatal(err)
	}
	sizes, err := ParseSizeDist("4KiB:50,1MiB:40,16MiB:10")
	if err != nil {
		t.Fatal(err)
	}
	kd, err := ParseKeyDist(dist)
	if err != nil {
		t.Fatal(err)
	}
	return NewMix(MixConfig{Ops: ops, Sizes: sizes, Keys: keys, Dist: kd, Seed: 42}, "p/")
}

func TestMixProportions(t *testing.T) {
	t.Parallel()
	m := testMix(t, "get=70,put=20,list=5,head=3,delete=2", "uniform", 1000)
	counts := map[string]int{}
	const n = 10000
	for range n {
		op, k := m.Next()
		counts[op]++
		m.done(op, k, true)
	}
	for op, want := range map[string]float64{"get": 70, "put": 20, "list": 5, "head": 3, "delete": 2} {
		got := 100 * float64(counts[op]) / n
		t.Logf("%s %.2f%% (want %g%%)", op, got, want)
		if math.Abs(got-want) > 2 {
			t.Errorf("%s: %.2f%% of %d ops, want %g%% ± 2", op, got, n, want)
		}
	}
	sizes := map[int64]int{}
	for k := range 1000 {
		sizes[m.SizeOf(k)]++
	}
	if math.Abs(float64(sizes[4<<10])-500) > 20 || math.Abs(float64(sizes[16<<20])-100) > 20 {
		t.Errorf("sizes over the working set %v, want about 500/400/100", sizes)
	}
}

// Deletes never take the working set below its floor: at most a tenth of
// the keys are missing at once, whatever the mix.
func TestMixDeleteFloor(t *testing.T) {
	t.Parallel()
	m := testMix(t, "delete=90,get=10", "uniform", 100)
	for range 2000 {
		op, k := m.Next()
		if op == "get" && m.missing[k] {
			t.Fatalf("get of deleted key %d", k)
		}
		m.done(op, k, true)
		missing := 0
		for _, x := range m.missing {
			if x {
				missing++
			}
		}
		if missing > 10 {
			t.Fatalf("%d of 100 keys missing, floor is 90", missing)
		}
	}
}

func TestZipfTopKeyShare(t *testing.T) {
	t.Parallel()
	m := testMix(t, "get=100", "zipf:1.1", 100)
	const n = 50000
	top := 0
	for range n {
		op, k := m.Next()
		m.done(op, k, true)
		if k == 0 {
			top++
		}
	}
	want := KeyDist{Zipf: true, S: 1.1}.TopShare(100)
	got := float64(top) / n
	t.Logf("top key share %.4f, expected %.4f", got, want)
	if math.Abs(got-want) > 0.01 {
		t.Errorf("top key share %.4f, want %.4f ± 0.01", got, want)
	}
}

func TestParseMixBadInput(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"get=70,put=20":   "add up to 90",
		"get=70,fetch=30": "unknown op",
		"get":             "op=percent",
		"get=50,get=50":   "twice",
		"get=-10,put=110": "bad weight",
	} {
		if _, err := ParseMix(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMix(%q) = %v, want %q", in, err, want)
		}
	}
	if _, err := ParseSizeDist("4KiB:0,1MiB:0"); err == nil || !strings.Contains(err.Error(), "no positive weight") {
		t.Errorf("zero weights only: %v", err)
	}
	for _, bad := range []string{"zipf:1", "zipf:x", "pareto"} {
		if _, err := ParseKeyDist(bad); err == nil {
			t.Errorf("ParseKeyDist(%q) accepted", bad)
		}
	}
}
