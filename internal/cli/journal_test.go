package cli

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
)

// liveDone reads "done N" at the end of a live status line.
var liveDone = regexp.MustCompile(`^\s*[0-9.]+s get .* done ([0-9]+)$`)

// killable is objbench in a child process whose live status lines are
// read as they are printed.
type killable struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	done []int64 // each line's done count, in order
	more chan struct{}
	read sync.WaitGroup
}

func startKillable(t *testing.T, args ...string) *killable {
	t.Helper()
	k := &killable{cmd: exec.Command(os.Args[0], "-test.run=^TestShardHelperProcess$"), more: make(chan struct{}, 1)}
	for _, kv := range os.Environ() {
		if n, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(n, "OBJBENCH_") && !strings.HasPrefix(n, "JOB_COMPLETION") &&
			!strings.HasPrefix(n, "CLOUD_RUN_") && !strings.HasPrefix(n, "AWS_BATCH_") {
			k.cmd.Env = append(k.cmd.Env, kv)
		}
	}
	k.cmd.Env = append(k.cmd.Env, helperArgs+"="+strings.Join(args, "\x1f"))
	errPipe, err := k.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := k.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.cmd.Process.Kill(); _ = k.cmd.Wait() })
	k.read.Add(1)
	go func() {
		defer k.read.Done()
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			if m := liveDone.FindStringSubmatch(sc.Text()); m != nil {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				k.mu.Lock()
				k.done = append(k.done, n)
				k.mu.Unlock()
				select {
				case k.more <- struct{}{}:
				default:
				}
			}
		}
	}()
	return k
}

// waitLines waits until n live lines were printed.
func (k *killable) waitLines(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		k.mu.Lock()
		got := len(k.done)
		k.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-k.more:
		case <-deadline:
			t.Fatalf("%d live status lines after a minute, want %d", got, n)
		}
	}
}

// kill sends SIGKILL and returns the done counts the run had printed.
func (k *killable) kill(t *testing.T) []int64 {
	t.Helper()
	if err := k.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = k.cmd.Wait() // reaped: the process is gone, as a killed run's is
	k.read.Wait()
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]int64(nil), k.done...)
}

// journalOf sums the journal the killed run left in db, read without
// objbench (whose next command recovers it), and checks the database.
func journalOf(t *testing.T, db string) (id string, count, errs int64, intervals int) {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(60000)")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var ok string
	if err := h.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check after the kill: %q %v", ok, err)
	}
	if err := h.QueryRow(`SELECT run_id FROM journal_runs`).Scan(&id); err != nil {
		t.Fatalf("the killed run left no journal: %v", err)
	}
	rows, err := h.Query(`SELECT data FROM journal_intervals WHERE run_id = ?`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		var iv stats.Interval
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &iv); err != nil {
			t.Fatal(err)
		}
		count, errs, intervals = count+iv.Count, errs+iv.Errors, intervals+1
	}
	return id, count, errs, intervals
}

// TestKilledRunKept kills (SIGKILL) an open-loop run at a random moment
// after its first intervals, 20 times: the next command finds it
// interrupted, with every journaled interval and at least what its live
// status line had printed; show, report and compare against a finished
// run work on it, and the database is intact.
func TestKilledRunKept(t *testing.T) {
	if testing.Short() {
		t.Skip("20 runs killed in turn")
	}
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	open := []string{"--workload", "latency", "--op-sizes", "0", "--op-count", "1", "--interval", "100ms", "--db", db}
	if code, _, errOut := runCLI(t, ctx, append([]string{"run", "--gets", "200", "--rate", "400", "-q"}, open...)...); code != 0 {
		t.Fatalf("finished run: exit %d: %s", code, errOut)
	}
	finished := listRuns(t, db)[0].ID
	for rep := range 20 {
		k := startKillable(t, append([]string{"run", "--gets", "1000000", "--rate", "300", "--duration", "60s"}, open...)...)
		k.waitLines(t, 3)
		time.Sleep(time.Duration(rand.Int64N(int64(1500 * time.Millisecond)))) // a random moment after the first intervals
		printed := k.kill(t)
		id, count, errs, intervals := journalOf(t, db)

		runs := listRuns(t, db)
		var got *listedRun
		for i := range runs {
			if runs[i].ID == id {
				got = &runs[i]
			}
		}
		if got == nil || !got.Interrupted {
			t.Fatalf("rep %d: runs --json lists %+v for the killed run %s, want it interrupted", rep, got, id)
		}
		code, out, errOut := runCLI(t, ctx, "show", "--json", "--db", db, id)
		if code != 0 {
			t.Fatalf("rep %d: show --json: exit %d: %s", rep, code, errOut)
		}
		var d document.Document
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		var dc, de int64
		for _, r := range d.Results {
			dc, de = dc+r.Count, de+r.Errors
		}
		if dc != count || de != errs {
			t.Errorf("rep %d: the run counts %d ok %d failed, its %d journaled intervals %d and %d", rep, dc, de, intervals, count, errs)
		}
		// The line printed two intervals before the kill (the last one
		// printed is journaled too: each interval is written before it is shown).
		if n := len(printed); n < 3 || dc+de < printed[n-3] || dc+de < printed[n-1] {
			t.Errorf("rep %d: the run kept %d operations, its live lines had printed %v", rep, dc+de, printed)
		}
		if d.CutShort == nil || !strings.Contains(d.CutShort.Reason, "is gone") || d.CutShort.Intervals != intervals {
			t.Errorf("rep %d: cut_short %+v, want the process gone and %d intervals", rep, d.CutShort, intervals)
		}
		if code, out, errOut := runCLI(t, ctx, "show", "--db", db, id); code != 0 || !strings.Contains(out, "cut short (process") {
			t.Errorf("rep %d: show: exit %d, no cut-short line:\n%s%s", rep, code, out, errOut)
		}
		if code, out, errOut := runCLI(t, ctx, "compare", "--db", db, finished, id); code != 0 || !strings.Contains(out, "B: cut short") {
			t.Errorf("rep %d: compare: exit %d:\n%s%s", rep, code, out, errOut)
		}
		if rep == 0 { // its JSON, checked against the schema by runCLI
			if code, out, errOut := runCLI(t, ctx, "compare", "--json", "--db", db, finished, id); code != 0 || !strings.Contains(out, `"cut_short"`) {
				t.Errorf("compare --json: exit %d:\n%s%s", code, out, errOut)
			}
		}
		html := filepath.Join(dir, "r.html")
		if code, _, errOut := runCLI(t, ctx, "report", "--db", db, "-o", html, id, finished); code != 0 {
			t.Errorf("rep %d: report: exit %d: %s", rep, code, errOut)
		} else if b, _ := os.ReadFile(html); !strings.Contains(string(b), "cut short") {
			t.Errorf("rep %d: the report does not say the run was cut short", rep)
		}
		if left := journalRows(t, db); left != 0 {
			t.Errorf("rep %d: %d journal rows left after recovery", rep, left)
		}
		t.Logf("rep %d: killed after %d lines (last done %d), kept %d ok + %d failed in %d intervals", rep, len(printed), printed[len(printed)-1], dc, de, intervals)
	}
	h, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var ok string
	if err := h.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
}

// journalRows counts the rows of every journal table.
func journalRows(t *testing.T, db string) int {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	total := 0
	for _, table := range []string{"journal_runs", "journal_steps", "journal_results", "journal_intervals"} {
		var n int
		if err := h.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

type listedRun struct {
	ID          string `json:"run_id"`
	Interrupted bool   `json:"interrupted"`
}

func listRuns(t *testing.T, db string) []listedRun {
	t.Helper()
	code, out, errOut := runCLI(t, context.Background(), "runs", "--json", "--db", db)
	if code != 0 {
		t.Fatalf("runs --json: exit %d: %s", code, errOut)
	}
	var v struct{ Runs []listedRun }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	return v.Runs
}

// TestKilledShardMerged kills (SIGKILL) a shard writing --results-to a
// directory after its first partial uploads: merge merges what it
// measured, named as partial, with the counts of its last upload.
func TestKilledShardMerged(t *testing.T) {
	if testing.Short() {
		t.Skip("a shard killed")
	}
	ctx := context.Background()
	dir := t.TempDir()
	res := filepath.Join(dir, "results")
	id := newRunID()
	args := []string{"run", "--shard", "0/2", "--run-id", id, "--results-to", res, "--results-every", "300ms", "--interval", "100ms",
		"--workload", "latency", "--gets", "1000000", "--rate", "300", "--duration", "60s", "--op-sizes", "0", "--op-count", "1",
		"--db", filepath.Join(dir, "results.db")}
	started := time.Now()
	k := startKillable(t, args...)
	k.waitLines(t, 8) // two uploads or more
	time.Sleep(time.Duration(rand.Int64N(int64(time.Second))))
	printed := k.kill(t)
	ran := time.Since(started)

	b, err := os.ReadFile(filepath.Join(res, id, "shard-0.json"))
	if err != nil {
		t.Fatalf("the killed shard uploaded nothing: %v", err)
	}
	f, err := shard.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Interrupted || f.CutShort == nil || len(f.Results) != 1 || f.Results[0].Count == 0 {
		t.Fatalf("the partial upload: interrupted %t, cut_short %+v, %d results", f.Interrupted, f.CutShort, len(f.Results))
	}
	// The upload counts what was done when it was made: an upload can come
	// after the last status line the shard printed (each on its own clock),
	// so the bound is what the schedule (300/s) offered until the kill.
	uploaded := f.Results[0].Count + f.Results[0].Errors
	if offered := int64(300*ran.Seconds()) + 1; uploaded > offered {
		t.Errorf("the partial upload counts %d operations, more than the %d the schedule offered in the %v the shard ran", uploaded, offered, ran.Round(time.Millisecond))
	}
	code, out, errOut := runCLI(t, ctx, "merge", res, "--json", "--no-save")
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	var m document.Document
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m.Merge == nil || len(m.Merge.Partial) != 1 || m.Merge.Partial[0] != 0 || !m.Interrupted {
		t.Fatalf("merge: %+v, want shard 0 merged as partial", m.Merge)
	}
	if len(m.Results) != 1 || m.Results[0].Count != f.Results[0].Count || m.Results[0].Errors != f.Results[0].Errors {
		t.Fatalf("merged counts %+v, the shard's partial upload %d ok %d failed", m.Results, f.Results[0].Count, f.Results[0].Errors)
	}
	_, out, _ = runCLI(t, ctx, "merge", res, "--no-save")
	if !strings.Contains(out, "partial: 0") {
		t.Errorf("merge does not name shard 0 as partial:\n%s", out)
	}
	t.Logf("shard killed after %d lines (last done %d); its partial upload: %d operations, merged %d", len(printed), printed[len(printed)-1], uploaded, m.Results[0].Count)
}

// TestJournalFinishedRun: a run that finishes leaves no journal, reads as
// a finished run (no cut_short), and its final shard document is never
// replaced by a partial upload made while it ran.
func TestJournalFinishedRun(t *testing.T) {
	dir := t.TempDir()
	db, res := filepath.Join(dir, "results.db"), filepath.Join(dir, "results")
	code, _, errOut := runCLI(t, context.Background(), "run", "--results-to", res, "--results-every", "50ms", "--interval", "20ms",
		"--workload", "latency", "--gets", "150", "--rate", "300", "--op-sizes", "0", "--op-count", "2", "--db", db, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "journal") {
		t.Errorf("the journal warned: %s", errOut)
	}
	if n := journalRows(t, db); n != 0 {
		t.Errorf("%d journal rows left after the run was saved", n)
	}
	runs := listRuns(t, db)
	if len(runs) != 1 || runs[0].Interrupted {
		t.Fatalf("runs %+v, want one finished run", runs)
	}
	matches, _ := filepath.Glob(filepath.Join(res, "*", "shard-0.json"))
	if len(matches) != 1 {
		t.Fatalf("shard documents %v", matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := shard.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Interrupted || f.CutShort != nil || len(f.Results) != 4 || f.Results[0].Op != "get" || f.Results[0].Count+f.Results[0].Errors != 150 {
		t.Fatalf("the final shard document: interrupted %t, cut_short %+v, %d results", f.Interrupted, f.CutShort, len(f.Results))
	}
}
