package merge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
)

// writeShardDocs writes n shard documents of a run of dur with 1 s
// intervals and a mix of 5 ops (one result each), at rate ops/s per shard,
// into dir, and returns their total size.
func writeShardDocs(tb testing.TB, dir string, n int, dur time.Duration, rate int) int64 {
	tb.Helper()
	ops := []string{"get", "put", "list", "head", "delete"}
	rng := rand.New(rand.NewPCG(7, 9))
	// A pool of interval histograms, as 1 s of one op on one shard holds.
	per := rate / len(ops)
	var pool []string
	for range 64 {
		vs := make([]int64, per)
		for i := range vs {
			vs[i] = int64(2000 + rng.ExpFloat64()*3000)
		}
		e, err := stats.HistogramOf(vs).Encode()
		if err != nil {
			tb.Fatal(err)
		}
		pool = append(pool, e)
	}
	// A pool of whole recorders, as a shard's step of 12,000 operations
	// over 8 workers stores them.
	var recs [][]byte
	for range 4 {
		r := stats.NewRecorder()
		for i := range 12_000 {
			t0 := time.Unix(0, 0)
			d := time.Duration(2000+rng.ExpFloat64()*3000) * time.Microsecond
			s := nettrace.Sample{Start: t0, FirstByte: t0.Add(d * 9 / 10), End: t0.Add(d), Seq: i / 8, Reused: i >= 8, Requests: 1, Size: 4096}
			s.Phases[nettrace.Wait] = d * 8 / 10
			r.Add(&s)
		}
		b, err := r.Encode()
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, b)
	}
	secs := int(dur / time.Second)
	start := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	var size int64
	for i := range n {
		doc := &document.Document{Envelope: document.NewEnvelope("run", "bench", start)}
		doc.Shard = &document.ShardInfo{Run: "bench", Index: i, Count: n, Engine: shard.EngineFlag}
		var hists []map[string][]byte
		for _, op := range ops {
			var series []stats.Interval
			var all []int64
			for s := range secs {
				e := pool[rng.IntN(len(pool))]
				series = append(series, stats.Interval{Op: op, StartS: float64(s), EndS: float64(s + 1), Count: int64(per), Bytes: int64(per) * 4096,
					InFlight: 8, TTFB: e, Total: e})
				if s < 8 {
					all = append(all, int64(2000+s*100))
				}
			}
			h := stats.HistogramOf(all)
			enc, _ := h.Encode()
			b, _ := stats.EncodeSeries(series)
			doc.Results = append(doc.Results, document.Result{Workload: "mixed", Op: op, SizeBytes: 4096, Concurrency: 8,
				Count: int64(per * secs), WallS: dur.Seconds(), TTFBms: h.Dist(), TotalMs: h.Dist()})
			doc.Shard.Windows = append(doc.Shard.Windows, document.Window{Start: start.Format(time.RFC3339Nano), End: start.Add(dur).Format(time.RFC3339Nano)})
			hists = append(hists, map[string][]byte{"ttfb": []byte(enc), "total": []byte(enc), stats.SeriesMetric: b,
				stats.RecorderMetric: recs[rng.IntN(len(recs))]})
		}
		b, err := shard.Encode(doc, hists)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
		size += int64(len(b))
	}
	return size
}

// peakHeap samples the live heap every 5 ms until stop is called, and
// returns the most seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); <-finished; return peak.Load() }
}

// BenchmarkMerge100Shards: objbench merge of 100 shard documents of a
// 10-minute run (1 s intervals, 5 ops, 100 ops/s per shard), read from a
// directory: the target is under 2 s and 100 MB.
// OBJBENCH_BENCH_KEEP=DIR keeps the documents there (for timing the CLI).
func BenchmarkMerge100Shards(b *testing.B) {
	dir := os.Getenv("OBJBENCH_BENCH_KEEP")
	if dir == "" {
		dir = b.TempDir()
	}
	size := writeShardDocs(b, dir, 100, 10*time.Minute, 100)
	runtime.GC()
	// As objbench merge runs: a soft memory limit (see MemoryLimit).
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(MemoryLimit))
	b.ResetTimer()
	var peak uint64
	var cpu time.Duration
	for b.Loop() {
		cpu0, _ := stats.ProcessCPU()
		stop := peakHeap()
		mg := NewMerger(100)
		if err := ReadEach(context.Background(), []string{dir}, nil, mg.Add); err != nil {
			b.Fatal(err)
		}
		m, err := mg.Result()
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Doc.Results) != 5 || m.Doc.Results[0].Count != 100*20*600 {
			b.Fatalf("merged %d results, count %d", len(m.Doc.Results), m.Doc.Results[0].Count)
		}
		peak = max(peak, stop())
		cpu1, _ := stats.ProcessCPU()
		cpu += cpu1 - cpu0
	}
	// CPU time beside wall time: on a shared machine the wall time says
	// as much about the neighbours as about the merge.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(size)/1e6, "input-MB")
}
