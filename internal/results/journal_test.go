package results

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
)

// journalFixture is a run's journal of one step with ivs intervals of
// random GETs, and the recorder that saw the same operations.
func journalFixture(t testing.TB, ivs int) (settings document.Document, tmpl document.Result, rows []stats.Interval, rec *stats.Recorder) {
	t.Helper()
	started := time.Now().Add(-time.Minute)
	settings = document.Document{Envelope: document.NewEnvelope("run", "20261125T100000-abcdef", started)}
	settings.Target = document.TargetInfo{URL: "s3://bucket", Provider: "s3"}
	tmpl = document.Result{Workload: "latency", Op: "get", SizeBytes: 1024, Concurrency: 4, Strategy: "pooled", SeriesIntervalS: 1,
		OpenLoop: &document.OpenLoop{Rate: "100", Arrivals: "uniform", LatencyFrom: "intended", MaxInflight: 4}}
	rng := rand.New(rand.NewPCG(1, uint64(ivs)))
	rec = stats.NewRecorder()
	series := stats.NewSeries(0, 1)
	for i := range ivs {
		w := stats.NewIntervalRecorder()
		for range 50 + rng.IntN(50) {
			start := time.Unix(0, 0)
			ttfb := time.Duration(200+rng.IntN(5000)) * time.Microsecond
			s := &nettrace.Sample{Start: start, FirstByte: start.Add(ttfb), End: start.Add(ttfb + time.Duration(rng.IntN(3000))*time.Microsecond),
				Bytes: 1024, Size: 1024}
			if rng.IntN(40) == 0 {
				s.Err, s.ErrClass = "boom", "server"
			}
			w.Add(s)
			rec.Add(s)
		}
		iv := series.Drain("get", time.Duration(i)*time.Second, time.Duration(i+1)*time.Second, []*stats.IntervalRecorder{w})
		rows = append(rows, iv)
	}
	return settings, tmpl, rows, rec
}

// TestPartialAddsUp: a step made from its intervals has the counts of the
// operations a recorder of them has, and the intervals' histograms added.
func TestPartialAddsUp(t *testing.T) {
	for _, n := range []int{1, 7, 600} { // 600: past stats.MaxIntervals, the series merges pairwise
		settings, tmpl, ivs, rec := journalFixture(t, n)
		p := NewPartial(settings)
		p.BeginStep(1, tmpl)
		for i, iv := range ivs {
			if err := p.Add(1, iv, float64(100*(i+1)), time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		d, hists, err := p.Document("test", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		want := rec.Summarize(1024, time.Duration(n)*time.Second)
		r := d.Results[0]
		if len(d.Results) != 1 || r.Count != want.Count || r.Errors != want.Errors || r.ErrorsByClass["server"] != want.ErrorsByClass["server"] {
			t.Fatalf("%d intervals: %d results, count %d errors %d %v; the recorder %d %d %v", n, len(d.Results), r.Count, r.Errors, r.ErrorsByClass,
				want.Count, want.Errors, want.ErrorsByClass)
		}
		for _, m := range []string{"ttfb", "total"} {
			a, err := stats.DecodeHistogram(hists[0][m])
			if err != nil {
				t.Fatal(err)
			}
			// The intervals' sum, bucket for bucket (the step's own recorder
			// coarsens its later requests: its quantiles differ within its
			// precision, its counts not at all).
			b, _ := stats.SumSeries(ivs, m)
			if !a.Equal(b) || a.Count() != want.Count {
				t.Errorf("%d intervals: the %s histogram (%d values) is not the intervals' sum (%d)", n, m, a.Count(), b.Count())
			}
		}
		if r.WallS != float64(n) || r.OpenLoop == nil || r.OpenLoop.OfferedOps != float64(100*n) || r.OpenLoop.Rate != "100" {
			t.Errorf("%d intervals: wall %v, open loop %+v", n, r.WallS, r.OpenLoop)
		}
		series, err := stats.DecodeSeries(hists[0][stats.SeriesMetric])
		if err != nil {
			t.Fatal(err)
		}
		var sc int64
		for _, iv := range series {
			sc += iv.Count
		}
		if sc != r.Count || len(series) > stats.MaxIntervals || r.SeriesIntervalS*float64(len(series)) < float64(n) {
			t.Errorf("%d intervals: series of %d intervals of %v s counts %d, want %d", n, len(series), r.SeriesIntervalS, sc, r.Count)
		}
		if !d.Interrupted || d.CutShort == nil || d.CutShort.Intervals != n || d.CutShort.CoversS != float64(n) || d.CutShort.Steps != 0 {
			t.Errorf("%d intervals: interrupted %t, cut_short %+v", n, d.Interrupted, d.CutShort)
		}
	}
}

// TestPartialFinishedSteps: a finished result replaces its step's
// intervals; a mixed step's parts, each its op's.
func TestPartialFinishedSteps(t *testing.T) {
	settings, tmpl, ivs, _ := journalFixture(t, 3)
	p := NewPartial(settings)
	p.BeginStep(1, tmpl)
	for _, iv := range ivs {
		_ = p.Add(1, iv, 0, time.Now())
	}
	p.Result(1, document.Result{Workload: "latency", Op: "get", Count: 7, WallS: 3}, nil)
	mixed := tmpl
	mixed.Workload, mixed.Op = "mixed", "mixed"
	p.BeginStep(2, mixed)
	for _, op := range []string{"get", "put"} {
		for _, iv := range ivs {
			iv.Op = op
			_ = p.Add(2, iv, 0, time.Now())
		}
	}
	p.Result(2, document.Result{Workload: "mixed", Op: "get", Count: 9, WallS: 2}, nil) // the put part not yet
	d, _, err := p.Document("test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range d.Results {
		got = append(got, r.Workload+" "+r.Op)
	}
	if strings.Join(got, ",") != "latency get,mixed get,mixed put" || d.Results[1].Count != 9 || d.Results[2].Count == 0 {
		t.Fatalf("results %v (counts %d, %d)", got, d.Results[1].Count, d.Results[2].Count)
	}
	if d.CutShort.Steps != 1 || d.CutShort.CoversS != 3+3 { // step 1, then step 2's running part as far as its intervals (3 s)
		t.Errorf("cut_short %+v", d.CutShort)
	}
}

// deadPID is the id of a process that has ended (and was reaped).
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip("no true command to get a dead process id:", err)
	}
	return c.Process.Pid
}

// TestRecoverJournal: Open makes a journal whose process is gone into an
// interrupted run with what it journaled, and leaves a live one alone.
func TestRecoverJournal(t *testing.T) {
	host, _ := os.Hostname()
	dead := deadPID(t)
	for _, tt := range []struct {
		name    string
		pid     int
		host    string
		process string // "": this process's stamp
		idle    time.Duration
		want    string // the reason's start; "" not recovered
	}{
		{"alive", os.Getpid(), host, "", 0, ""},
		{"gone", dead, host, "", 0, "process "},
		{"id reused", os.Getpid(), host, "other-boot/1", 0, "process "},
		{"other host, writing", 1, "elsewhere", "x", time.Minute, ""},
		{"other host, silent", 1, "elsewhere", "x", StaleAfter + time.Minute, "no journal entry from host elsewhere"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "r.db")
			st, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			settings, tmpl, ivs, _ := journalFixture(t, 4)
			id := settings.RunID
			sb, _ := document.Encode(&settings)
			tb, _ := json.Marshal(tmpl)
			if err := st.BeginJournal(ctx, id, settings.Started(), sb); err != nil {
				t.Fatal(err)
			}
			if err := st.JournalStep(ctx, id, 1, tb); err != nil {
				t.Fatal(err)
			}
			var count int64
			for i, iv := range ivs {
				b, _ := json.Marshal(iv)
				if err := st.JournalIntervals(ctx, id, 1, i, []JournalInterval{{Op: "get", End: time.Now(), Data: b}}); err != nil {
					t.Fatal(err)
				}
				count += iv.Count
			}
			process := tt.process
			if process == "" {
				process = processStamp(os.Getpid())
			}
			if _, err := st.db.ExecContext(ctx, `UPDATE journal_runs SET pid = ?, host = ?, process = ?, updated_at = ?`,
				tt.pid, tt.host, process, time.Now().Add(-tt.idle).UnixNano()); err != nil {
				t.Fatal(err)
			}
			if _, err := st.db.ExecContext(ctx, `UPDATE journal_intervals SET end_ns = ?`, time.Now().Add(-tt.idle).UnixNano()); err != nil {
				t.Fatal(err)
			}
			st.Close()

			st, err = Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if st.RecoverErr != nil {
				t.Fatal(st.RecoverErr)
			}
			left, _ := st.SumJournal(ctx, id)
			run, steps, err := st.Get(ctx, id)
			if tt.want == "" {
				if err == nil || left.Count != count {
					t.Fatalf("a live run was recovered (%v), its journal holds %d of %d", err, left.Count, count)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var d document.Document
			if err := json.Unmarshal(run.Document, &d); err != nil {
				t.Fatal(err)
			}
			if !run.Interrupted || d.CutShort == nil || !strings.HasPrefix(d.CutShort.Reason, tt.want) || run.Host != tt.host {
				t.Fatalf("interrupted %t, host %q, cut_short %+v; want reason %q", run.Interrupted, run.Host, d.CutShort, tt.want)
			}
			if len(d.Results) != 1 || d.Results[0].Count != count || len(steps) != 1 || steps[0].Histograms["total"] == nil {
				t.Fatalf("%d results (count %d of %d journaled), %d steps", len(d.Results), d.Results[0].Count, count, len(steps))
			}
			if left.Intervals != 0 {
				t.Errorf("%d intervals left in the journal after recovery", left.Intervals)
			}
		})
	}
}

// TestSaveEndsJournal: saving a run removes its journal in the same
// transaction, so that a finished run is never recovered as well.
func TestSaveEndsJournal(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	settings, _, ivs, _ := journalFixture(t, 2)
	sb, _ := document.Encode(&settings)
	id := settings.RunID
	if err := st.BeginJournal(ctx, id, settings.Started(), sb); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ivs[0])
	if err := st.JournalIntervals(ctx, id, 1, 0, []JournalInterval{{Op: "get", End: time.Now(), Data: b}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := st.SumJournal(ctx, id); s.Intervals != 1 {
		t.Fatalf("journal holds %d intervals, want 1", s.Intervals)
	}
	run, steps, err := Record(&settings, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Save(ctx, run, steps, nil); err != nil {
		t.Fatal(err)
	}
	for _, table := range journalTables {
		var n int
		if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows after the save (%v)", table, n, err)
		}
	}
}

// BenchmarkJournalIntervals is the journal's cost per interval: one op's
// interval of about 75 operations (two encoded histograms) appended in
// its own transaction, as a run writes one per --interval (1 s by
// default).
func BenchmarkJournalIntervals(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	settings, _, ivs, _ := journalFixture(b, 1)
	sb, _ := document.Encode(&settings)
	if err := st.BeginJournal(ctx, settings.RunID, settings.Started(), sb); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		data, _ := json.Marshal(ivs[0])
		if err := st.JournalIntervals(ctx, settings.RunID, 1, i, []JournalInterval{{Op: "get", End: time.Now(), Data: data}}); err != nil {
			b.Fatal(err)
		}
	}
}
