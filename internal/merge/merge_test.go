package merge

import (
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/usage"
)

// shardFile builds shard i of n whose one result (get 1KiB) took the given
// total latencies (ms), over a window starting at start and lasting wall,
// with one interval per second.
func shardFile(t testing.TB, runID string, i, n int, start time.Time, wall time.Duration, ms []float64) *shard.File {
	t.Helper()
	return shardFileEvery(t, runID, i, n, start, wall, ms, 1)
}

// shardFileEvery is shardFile with intervals of every seconds (the last
// one shorter when every does not divide the wall time), as a series
// that merged its intervals past stats.MaxIntervals keeps them.
func shardFileEvery(t testing.TB, runID string, i, n int, start time.Time, wall time.Duration, ms []float64, every int) *shard.File {
	t.Helper()
	us := make([]int64, len(ms))
	for k, v := range ms {
		us[k] = int64(v * 1000)
	}
	h := stats.HistogramOf(us)
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d := h.Dist()
	r := document.Result{Workload: "latency", Op: "get", SizeBytes: 1024, Concurrency: 1, Count: int64(len(ms)), TTFBms: d, TotalMs: d,
		WallS: wall.Seconds(), AggregateMBps: float64(len(ms)) * 1024 / 1e6 / wall.Seconds(), RequestsPerOp: 1, ReusedFraction: 1}
	secs := int(wall / time.Second)
	var series []stats.Interval
	for s := 0; s < secs; s += every {
		end := min(s+every, secs)
		part := us[len(us)*s/secs : len(us)*end/secs]
		e, _ := stats.HistogramOf(part).Encode()
		series = append(series, stats.Interval{Op: "get", StartS: float64(s), EndS: float64(end), Count: int64(len(part)),
			Bytes: int64(len(part)) * 1024, InFlight: 1, TTFB: e, Total: e})
	}
	if every > 1 {
		r.SeriesIntervalS = float64(every)
	}
	doc := &document.Document{Envelope: document.NewEnvelope("run", runID, start), Results: []document.Result{r}}
	doc.Shard = &document.ShardInfo{Run: runID, Index: i, Count: n, Engine: shard.EngineFlag,
		Windows: []document.Window{{Start: start.Format(time.RFC3339Nano), End: start.Add(wall).Format(time.RFC3339Nano)}}}
	cols, err := stats.ToColumns(series)
	if err != nil {
		t.Fatal(err)
	}
	return &shard.File{Document: doc, Steps: []shard.StepData{{Histograms: map[string]string{"ttfb": enc, "total": enc}, Series: &cols}}}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestMergeIsTheUnion: the merged p99 is the union's, not the average of
// the shards' p99s. Shard 0's 1000 requests all take 10 ms (p99 10 ms);
// shard 1's 1000 take 10 ms but for 50 of 500 ms (p99 500 ms). Of the 2000
// requests 50 (2.5%) take 500 ms, so the p99 of the run is 500 ms; the
// average of the p99s, 255 ms, is a latency no request had, and would put
// the run's 99th percentile at half of what 1 request in 40 waited.
func TestMergeIsTheUnion(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	a := repeat(10, 1000)
	b := append(repeat(10, 950), repeat(500, 50)...)
	in := []Input{
		{"b", shardFile(t, "r1", 1, 2, start, 10*time.Second, b)},
		{"a", shardFile(t, "r1", 0, 2, start, 10*time.Second, a)},
	}
	m, err := Merge(in, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Doc.Results[0]
	p99a, p99b := in[1].File.Results[0].TotalMs.P99, in[0].File.Results[0].TotalMs.P99
	avg := (p99a + p99b) / 2
	var all []int64
	for _, v := range append(append([]float64{}, a...), b...) {
		all = append(all, int64(v*1000))
	}
	union := stats.HistogramOf(all)
	t.Logf("shard p99s %.1f and %.1f ms, their average %.1f ms; merged p99 %.1f ms, union p99 %.1f ms", p99a, p99b, avg, r.TotalMs.P99, union.Quantile(99))
	got, err := stats.DecodeHistogram(m.Histograms[0]["total"])
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(union) {
		t.Fatal("merged histogram differs from the union's, bucket for bucket")
	}
	if r.Count != 2000 || r.TotalMs.P99 != union.Quantile(99) || r.TotalMs.P99 < 499 {
		t.Fatalf("merged count %d p99 %v, want 2000 and the union's %v", r.Count, r.TotalMs.P99, union.Quantile(99))
	}
	if d := r.TotalMs.P99 - avg; d < 200 {
		t.Fatalf("merged p99 %v is close to the average of p99s %v: the case does not tell them apart", r.TotalMs.P99, avg)
	}
	// The series add up to the step too.
	series, err := stats.DecodeSeries(m.Histograms[0][stats.SeriesMetric])
	if err != nil {
		t.Fatal(err)
	}
	sum, err := stats.SumSeries(series, "total")
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Equal(union) || len(series) != 10 {
		t.Fatalf("%d merged intervals; their sum equals the union: %t", len(series), sum.Equal(union))
	}
	ms := m.Doc.Merge.Steps[0]
	if ms.CommonWindowS != 10 || ms.CommonOpsPerS != 200 || len(ms.Shards) != 2 || m.Incomplete() {
		t.Fatalf("merge step %+v", ms)
	}
}

func TestMergeWindowsAndStragglers(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	in := []Input{
		{"0", shardFile(t, "r", 0, 3, start, 10*time.Second, repeat(5, 1000))},
		{"1", shardFile(t, "r", 1, 3, start, 10*time.Second, repeat(5, 1000))},
		// shard 2 starts 2 s late and runs as long: a straggler
		{"2", shardFile(t, "r", 2, 3, start.Add(2*time.Second), 10*time.Second, repeat(5, 1000))},
	}
	m, err := Merge(in, 0)
	if err != nil {
		t.Fatal(err)
	}
	ms := m.Doc.Merge.Steps[0]
	if ms.CommonWindowS != 8 || ms.WholeWindowS != 12 || ms.WholeOpsPerS != 250 || ms.CommonOpsPerS != 300 {
		t.Fatalf("windows: common %v s at %v ops/s, whole %v s at %v ops/s; want 8 s at 300, 12 s at 250",
			ms.CommonWindowS, ms.CommonOpsPerS, ms.WholeWindowS, ms.WholeOpsPerS)
	}
	if len(ms.Stragglers) != 1 || ms.Stragglers[0] != 2 {
		t.Fatalf("stragglers %v, want [2]", ms.Stragglers)
	}
}

func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	start := time.Now()
	f := func(run string, i, n int) *shard.File {
		return shardFile(t, run, i, n, start, time.Second, repeat(1, 10))
	}
	tests := []struct {
		name string
		in   []Input
		want string
	}{
		{"different runs", []Input{{"a", f("r1", 0, 2)}, {"b", f("r2", 1, 2)}}, "documents from different runs: a is of run r1, b of run r2"},
		{"different counts", []Input{{"a", f("r1", 0, 2)}, {"b", f("r1", 1, 3)}}, "not one run"},
		{"twice", []Input{{"a", f("r1", 0, 2)}, {"b", f("r1", 0, 2)}}, "shard 0 appears twice: a and b"},
		{"none", nil, "no shard documents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Merge(tt.in, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMergeNamesMissingAndPartial(t *testing.T) {
	t.Parallel()
	start := time.Now()
	p := shardFile(t, "r", 3, 4, start, time.Second, repeat(1, 10))
	p.Interrupted = true
	in := []Input{{"0", shardFile(t, "r", 0, 4, start, time.Second, repeat(1, 10))}, {"3", p}}
	m, err := Merge(in, 4)
	if err != nil {
		t.Fatal(err)
	}
	mi := m.Doc.Merge
	if !m.Incomplete() || len(mi.Missing) != 2 || mi.Missing[0] != 1 || len(mi.Partial) != 1 || mi.Partial[0] != 3 {
		t.Fatalf("merge info %+v", mi)
	}
	text := strings.Join(mi.Lacks, "\n")
	if !strings.Contains(text, "shards 1, 2 wrote no document") || !strings.Contains(text, "shard 3 was interrupted") {
		t.Fatalf("lacks: %s", text)
	}
}

func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	good, err := shard.Encode(shardFile(t, "r", 0, 1, time.Now(), time.Second, repeat(1, 10)).Document,
		[]map[string][]byte{{"total": []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"truncated", string(good[:len(good)/2]), "corrupted shard document"},
		{"other schema", strings.Replace(string(good), `"objbench/v1"`, `"objbench/v9"`, 1), `schema "objbench/v9"`},
		{"not a shard", `{"schema":"objbench/v1","run_id":"x","command":"run","results":[]}`, "without a shard block"},
		{"empty", `{}`, "no schema"},
	} {
		if _, err := shard.Decode([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestResultExpectedAndLabel(t *testing.T) {
	whole := &Result{Doc: &document.Document{Merge: &document.MergeInfo{Expected: 2, Merged: []int{0, 1}}}}
	part := &Result{Doc: &document.Document{Merge: &document.MergeInfo{Expected: 3, Merged: []int{0, 1}, Missing: []int{2}}}}
	for _, tt := range []struct {
		r      *Result
		expect int
		fail   bool
	}{{whole, 2, false}, {part, 0, false}, {part, 3, true}, {whole, 0, false}} {
		if err := tt.r.Expected(tt.expect); (err != nil) != tt.fail {
			t.Errorf("Expected(%d) on %+v: %v", tt.expect, tt.r.Doc.Merge, err)
		}
	}
	whole.Doc.Labels = map[string]string{"shard": "kept"}
	whole.Label(map[string]string{"env": "ci"})
	if whole.Doc.Labels["env"] != "ci" || whole.Doc.Labels["shard"] != "kept" {
		t.Errorf("labels %v", whole.Doc.Labels)
	}
}

// TestCheckExpect: a negative expected shard count is refused before any
// shard is read, a usage error naming its field; 0 (any) and a count pass.
func TestCheckExpect(t *testing.T) {
	for expect, want := range map[int]string{0: "", 4: "", -1: "Expect must be a positive shard count, got -1"} {
		err := CheckExpect(expect)
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && (got != want || usage.FieldOf(err) != "Expect") {
			t.Errorf("CheckExpect(%d) = %v (field %q), want %q", expect, err, usage.FieldOf(err), want)
		}
	}
}

// TestLimitMemory: merge's soft limit applies unless GOMEMLIMIT is set.
func TestLimitMemory(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	for _, c := range []struct {
		env  string
		want int64
	}{{"", MemoryLimit}, {"1GiB", math.MaxInt64}} {
		debug.SetMemoryLimit(math.MaxInt64)
		LimitMemory(func(k string) string {
			if k == "GOMEMLIMIT" {
				return c.env
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("GOMEMLIMIT=%q: limit %d, want %d", c.env, got, c.want)
		}
	}
}

// TestMergeSeriesOfDifferentIntervals: shards whose series kept different
// intervals (a count-bounded step that ended either side of
// stats.MaxIntervals intervals doubles them in one shard only) merge into
// the coarsest, each merged interval holding exactly the requests of its
// time in every shard, whatever order the documents arrive in. Intervals
// that do not divide are refused.
func TestMergeSeriesOfDifferentIntervals(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 25, 7, 0, 0, 0, time.UTC)
	// Shard s's request r takes 10+s+r%7 ms: each shard and second differs.
	lat := func(s, n int) []float64 {
		out := make([]float64, n)
		for r := range out {
			out[r] = float64(10 + s + r%7)
		}
		return out
	}
	tests := []struct {
		name   string
		every  []int // each shard's interval, seconds
		wall   int   // seconds
		want   float64
		refuse bool
	}{
		{"same", []int{1, 1}, 12, 1, false},
		{"fine then coarse", []int{1, 4, 2}, 12, 4, false},
		{"coarse then fine", []int{4, 2, 1}, 12, 4, false},
		{"last interval short", []int{2, 1}, 11, 2, false},
		{"do not divide", []int{2, 3}, 12, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wall := time.Duration(tc.wall) * time.Second
			m := NewMerger(0)
			var all []int64
			var err error
			for i, every := range tc.every {
				ms := lat(i, 120*tc.wall) // 120 requests a second
				for _, v := range ms {
					all = append(all, int64(v*1000))
				}
				if err = m.Add(Input{Name: fmt.Sprint(i), File: shardFileEvery(t, "r1", i, len(tc.every), start, wall, ms, every)}); err != nil {
					break
				}
			}
			if tc.refuse {
				if err == nil || !strings.Contains(err.Error(), "do not divide") {
					t.Fatalf("err %v, want intervals that do not divide refused", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.Result()
			if err != nil {
				t.Fatal(err)
			}
			series, err := stats.DecodeSeries(res.Histograms[0][stats.SeriesMetric])
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Doc.Results[0].SeriesIntervalS; tc.want > 1 && got != tc.want {
				t.Errorf("series_interval_s %v, want %v", got, tc.want)
			}
			if n := int(math.Ceil(float64(tc.wall) / tc.want)); len(series) != n {
				t.Fatalf("%d merged intervals, want %d", len(series), n)
			}
			for i, iv := range series {
				from, to := float64(i)*tc.want, min(float64(i+1)*tc.want, float64(tc.wall))
				h, err := stats.DecodeHistogram([]byte(iv.Total))
				if err != nil {
					t.Fatal(err)
				}
				want := int64(to-from) * 120 * int64(len(tc.every))
				if iv.StartS != from || iv.EndS != to || iv.Count != want || h.Count() != want || iv.InFlight != int64(len(tc.every)) {
					t.Errorf("interval %d: %v-%v s, %d requests (histogram %d), %d in flight; want %v-%v s, %d, %d",
						i, iv.StartS, iv.EndS, iv.Count, h.Count(), iv.InFlight, from, to, want, len(tc.every))
				}
			}
			sum, err := stats.SumSeries(series, "total")
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Equal(stats.HistogramOf(all)) {
				t.Error("the merged intervals' histograms do not add up to the union of the shards' requests")
			}
		})
	}
}
