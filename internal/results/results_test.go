package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func testRun(id, target string, started time.Time, labels map[string]string) Run {
	return Run{ID: id, Command: "run", StartedAt: started, DurationS: 1.5, TargetURL: target, Provider: "s3",
		Endpoint: "http://127.0.0.1:9000", Host: "h", Labels: labels, Document: []byte(`{"schema":"objbench/v1"}`)}
}

func TestSaveGetListDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "sub", "results.db"))
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	start := t0.Add(time.Second)
	smp := nettrace.Sample{Op: "get", Key: "k", Size: 1024, Bytes: 1024, Worker: 2, Seq: 3, Start: start,
		FirstByte: start.Add(5 * time.Millisecond), End: start.Add(7 * time.Millisecond), Status: 200, Requests: 1,
		Reused: true, WasIdle: true, IdleTime: time.Second, Proto: "h2", TLSVersion: "TLS1.3", RemoteAddr: "127.0.0.1:9000"}
	smp.Phases[nettrace.Connect], smp.Phases[nettrace.Wait] = 2*time.Millisecond, 3*time.Millisecond
	steps := []Step{{Index: 0, Workload: "latency", Op: "get", SizeBytes: 1024, Concurrency: 1, Strategy: "pooled",
		Summary: []byte(`{"count":1}`), Histograms: map[string][]byte{"ttfb": {1, 2, 3}, "total": {4}}}}
	if err := s.Save(ctx, testRun("20261101T120000-aaaaaa", "s3://one", t0, map[string]string{"env": "a"}), steps,
		slices.Values([]SampleRow{{Step: 0, Sample: smp}})); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, testRun("20261102T120000-bbbbbb", "gs://two", t0.Add(24*time.Hour), map[string]string{"env": "b"}), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, testRun("20261102T120000-bbbbbb", "gs://two", t0, nil), nil, nil); err == nil {
		t.Error("a second run with the same ID was saved")
	}
	tests := []struct {
		name string
		f    Filter
		want []string
	}{
		{"all newest first", Filter{}, []string{"20261102T120000-bbbbbb", "20261101T120000-aaaaaa"}},
		{"target", Filter{Target: "s3://"}, []string{"20261101T120000-aaaaaa"}},
		{"label", Filter{Labels: map[string]string{"env": "b"}}, []string{"20261102T120000-bbbbbb"}},
		{"since", Filter{Since: t0.Add(time.Hour)}, []string{"20261102T120000-bbbbbb"}},
		{"until", Filter{Until: t0.Add(time.Hour)}, []string{"20261101T120000-aaaaaa"}},
		{"command", Filter{Command: "strategies"}, nil},
		{"limit", Filter{Limit: 1}, []string{"20261102T120000-bbbbbb"}},
	}
	for _, tc := range tests {
		runs, err := s.List(ctx, tc.f)
		var got []string
		for _, r := range runs {
			got = append(got, r.ID)
			if want := map[string]string{"20261101T120000-aaaaaa": "a", "20261102T120000-bbbbbb": "b"}[r.ID]; r.Labels()["env"] != want {
				t.Errorf("%s: %s labels %v, want env=%s", tc.name, r.ID, r.Labels(), want)
			}
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
	run, gotSteps, err := s.Get(ctx, "20261101T12")
	if err != nil || run.ID != "20261101T120000-aaaaaa" || string(run.Document) != `{"schema":"objbench/v1"}` || run.Labels["env"] != "a" || !run.StartedAt.Equal(t0) {
		t.Fatalf("get by prefix: %+v %v", run, err)
	}
	if len(gotSteps) != 1 || !bytes.Equal(gotSteps[0].Histograms["ttfb"], []byte{1, 2, 3}) || string(gotSteps[0].Summary) != `{"count":1}` {
		t.Errorf("steps %+v", gotSteps)
	}
	if _, _, err := s.Get(ctx, "2026110"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if _, _, err := s.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	var back []SampleRow
	if err := s.Samples(ctx, run.ID, func(r SampleRow) error { back = append(back, r); return nil }); err != nil || len(back) != 1 {
		t.Fatalf("samples %v %v", back, err)
	}
	b := back[0].Sample
	if !b.Start.Equal(smp.Start) || !b.End.Equal(smp.End) || b.TTFB() != smp.TTFB() || b.Phases != smp.Phases || b.Proto != "h2" ||
		!b.Reused || !b.WasIdle || b.IdleTime != time.Second || b.Key != "k" || b.Seq != 3 || b.RemoteAddr != smp.RemoteAddr {
		t.Errorf("sample round trip:\n%+v\n%+v", b, smp)
	}
	if n, err := s.CountSamples(ctx, run.ID); n != 1 || err != nil {
		t.Errorf("count %d %v", n, err)
	}
	if err := s.Delete(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountSamples(ctx, "20261102"); n != 0 {
		t.Errorf("samples left after delete: %d", n)
	}
	if err := s.Delete(ctx, run.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestNewerSchemaRefusedUnchanged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.db")
	s := open(t, path)
	if _, err := s.db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, _ := os.ReadFile(path)
	_, err := Open(context.Background(), path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "99") {
		t.Errorf("err %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a newer database was modified")
	}
}

// TestConcurrentWriters: two handles (as two processes would) save at once.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.db")
	a, b := open(t, path), open(t, path)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				samples := make([]SampleRow, 200)
				if err := s.Save(context.Background(), testRun(fmt.Sprintf("run-%d-%02d", w, i), "s3://x", time.Now(), nil), nil, slices.Values(samples)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if runs, err := a.List(context.Background(), Filter{}); err != nil || len(runs) != 100 {
		t.Errorf("%d runs, %v", len(runs), err)
	}
}

func BenchmarkSave100kSamples(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "results.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	samples := make([]SampleRow, 100_000)
	i := 0
	for b.Loop() {
		if err := s.Save(context.Background(), testRun(fmt.Sprint("r", i), "s3://x", time.Now(), nil), nil, slices.Values(samples)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func TestDecodeLabels(t *testing.T) {
	t.Parallel()
	for _, m := range []map[string]string{
		nil,
		{"env": "laptop"},
		{"env": "a,b", "region": "us-east-1", "k:1": "{x}"},
		{"quote": `say "hi"`, "slash": `a\b`, "unicode": "café ☕", "": "empty key"},
		{"v": ""},
	} {
		b, _ := json.Marshal(m)
		if m == nil {
			b = []byte("{}")
		}
		got := decodeLabels(string(b))
		if len(got) != len(m) {
			t.Errorf("%s: got %v", b, got)
		}
		for k, v := range m {
			if got[k] != v {
				t.Errorf("%s: %q = %q, want %q", b, k, got[k], v)
			}
		}
	}
	if got := decodeLabels(`{"a":"b"`); got != nil {
		t.Errorf("broken JSON decoded to %v", got)
	}
}

// TestListingGC: the collector is off and the heap bounded at 512 MiB,
// or lower when the user set GOMEMLIMIT lower.
func TestListingGC(t *testing.T) {
	prevLimit, prevPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetMemoryLimit(prevLimit); debug.SetGCPercent(prevPercent) })
	for _, c := range []struct{ before, want int64 }{{math.MaxInt64, 512 << 20}, {100 << 20, 100 << 20}} {
		debug.SetMemoryLimit(c.before)
		debug.SetGCPercent(100)
		ListingGC()
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("limit %d before: %d after, want %d", c.before, got, c.want)
		}
		if got := debug.SetGCPercent(100); got != -1 {
			t.Errorf("GC percent %d, want -1 (off)", got)
		}
	}
}

// TestPackedSamplesSameRows: the samples a run keeps packed (the
// reservoir) are stored as the same rows as the samples themselves, to
// the nanosecond: every kind a run makes (first requests on new
// connections, reused ones, a failure, no first byte, a long transfer kept
// whole).
func TestPackedSamplesSameRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "results.db"))
	start := time.Now()
	var samples []nettrace.Sample
	for i := range 600 {
		at := start.Add(time.Duration(i) * 1_234_567)
		smp := nettrace.Sample{Op: []string{"get", "put", "head"}[i%3], Key: fmt.Sprintf("objbench/k%05d", i%50), Size: 1024,
			Bytes: 1024, Worker: i % 8, Seq: i / 8, Start: at, FirstByte: at.Add(time.Duration(300_000 + i)), End: at.Add(time.Duration(400_000 + 3*i)),
			Status: 200, Requests: 1, Reused: i%8 != 0, WasIdle: i%5 == 0, IdleTime: time.Duration(i) * time.Microsecond,
			Proto: "HTTP/1.1", RemoteAddr: "127.0.0.1:9000"}
		smp.Phases[nettrace.Wait], smp.Phases[nettrace.Recv] = time.Duration(250_000+i), time.Duration(90_000+2*i)
		if !smp.Reused {
			smp.Phases[nettrace.Connect], smp.Proto, smp.TLSVersion = time.Duration(40_000+i), "HTTP/2.0", "TLS 1.3"
		}
		switch i % 97 {
		case 1:
			smp.Err, smp.ErrClass, smp.Status = "GET: 503 SlowDown", "throttled", 503
		case 2:
			smp.FirstByte, smp.Status, smp.ErrClass = time.Time{}, 0, "timeout"
		case 3:
			smp.End, smp.Phases[nettrace.Recv] = at.Add(9*time.Second), 9*time.Second-300*time.Microsecond
		}
		samples = append(samples, smp)
	}
	res := stats.NewReservoir(len(samples))
	wide := make([]SampleRow, len(samples))
	for i := range samples {
		res.Add(i%4, &samples[i])
		wide[i] = SampleRow{Step: i % 4, Sample: samples[i]}
	}
	for id, seq := range map[string]stats.KeptSeq{"wide": slices.Values(wide), "packed": res.All()} {
		if err := s.Save(ctx, testRun(id, "s3://x", start, nil), nil, seq); err != nil {
			t.Fatal(err)
		}
	}
	rows := map[string][]SampleRow{}
	for _, id := range []string{"wide", "packed"} {
		if err := s.Samples(ctx, id, func(r SampleRow) error { rows[id] = append(rows[id], r); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(rows["wide"]) != len(samples) || !reflect.DeepEqual(rows["wide"], rows["packed"]) {
		t.Errorf("%d rows stored from the samples, %d from the packed ones; equal: %v", len(rows["wide"]), len(rows["packed"]),
			reflect.DeepEqual(rows["wide"], rows["packed"]))
	}
}
