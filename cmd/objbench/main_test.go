package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/results"
)

// TestMain lets the tests run this binary as objbench itself, in a child
// process that can be killed.
func TestMain(m *testing.M) {
	if os.Getenv("OBJBENCH_TEST_BE_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// objbench starts objbench as a child process.
func objbench(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "OBJBENCH_TEST_BE_MAIN=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	return cmd, &out, &errOut
}

// quickRun is a short lab run that keeps many samples, so that its save
// takes a noticeable part of its life.
func quickRun(db string) []string {
	return []string{"run", "--workload", "latency", "--gets", "1500", "--op-sizes", "0", "--op-count", "2", "-q", "--json", "--keep-samples", "100000", "--db", db}
}

func runID(t *testing.T, out []byte) string {
	t.Helper()
	var d struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(out, &d); err != nil || d.RunID == "" {
		t.Fatalf("no run_id in output: %v %.200s", err, out)
	}
	return d.RunID
}

// checkDB opens the database as objbench does, checks its integrity and
// that every run in want is there.
func checkDB(t *testing.T, db string, want []string) {
	t.Helper()
	ctx := context.Background()
	st, err := results.Open(ctx, db)
	if err != nil {
		t.Fatalf("database does not open: %v", err)
	}
	defer st.Close()
	runs, err := st.List(ctx, results.Filter{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	have := map[string]bool{}
	for _, r := range runs {
		have[r.ID] = true
	}
	for _, id := range want {
		if !have[id] {
			t.Errorf("run %s, completed before, is missing", id)
		}
		if _, _, err := st.Get(ctx, id); err != nil {
			t.Errorf("run %s: %v", id, err)
		}
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var check string
	if err := raw.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q %v", check, err)
	}
}

// TestSIGKILLLeavesDatabaseUsable kills objbench at points spread over a
// run's life, the save included: the database opens, passes SQLite's
// integrity check and holds every run completed before.
func TestSIGKILLLeavesDatabaseUsable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts objbench many times")
	}
	t.Parallel()
	db := filepath.Join(t.TempDir(), "results.db")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	var done []string
	complete := func() time.Duration {
		start := time.Now()
		cmd, out, errOut := objbench(ctx, quickRun(db)...)
		if err := cmd.Run(); err != nil {
			t.Fatalf("run: %v: %s", err, errOut)
		}
		done = append(done, runID(t, out.Bytes()))
		return time.Since(start)
	}
	complete()
	life := complete() // warm: the first start also fills caches
	killed := 0
	for _, frac := range []float64{0.5, 0.7, 0.8, 0.85, 0.9, 0.93, 0.96, 0.99} {
		cmd, out, _ := objbench(ctx, quickRun(db)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(frac * float64(life)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err == nil {
			// It finished first: its run must be there too.
			done = append(done, runID(t, out.Bytes()))
		} else {
			killed++
		}
		checkDB(t, db, done)
		complete()
	}
	if killed == 0 {
		t.Error("every run ended before its kill: nothing was tested")
	}
	t.Logf("%d of 8 runs killed, %d completed", killed, len(done))
	checkDB(t, db, done)
}

// TestTwoProcessesSaveAtOnce: two objbench processes finishing together
// both save their runs.
func TestTwoProcessesSaveAtOnce(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "results.db")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	ids := make([]string, 2)
	errs := make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd, out, errOut := objbench(ctx, quickRun(db)...)
			if err := cmd.Run(); err != nil {
				errs[i] = err.Error() + ": " + errOut.String()
				return
			}
			var d struct {
				RunID string `json:"run_id"`
			}
			_ = json.Unmarshal(out.Bytes(), &d)
			ids[i] = d.RunID
			if bytes.Contains(errOut.Bytes(), []byte("not saved")) {
				errs[i] = errOut.String()
			}
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("process %d: %s", i, e)
		}
	}
	checkDB(t, db, ids)
}

// TestServeSIGTERM: SIGTERM during a round lets it answer, then the
// process exits 0 (Cloud Run and Kubernetes stop containers this way).
func TestServeSIGTERM(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "serve", "--listen", "127.0.0.1:0", "--target", "lab:same-region", "--rtt", "5ms", "--no-save")
	cmd.Env = append(os.Environ(), "OBJBENCH_TEST_BE_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		_ = cmd.Process.Kill()
		t.Fatalf("serve did not start: %q %v %s", line, err, errOut.String())
	}
	type answer struct {
		code int
		body []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		// 100 GETs at 5 ms round trips: about half a second.
		resp, err := http.Post(m[1]+"/probe", "application/json", strings.NewReader(`{"count": 100}`))
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, b, err}
	}()
	time.Sleep(150 * time.Millisecond) // the round is under way
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil || a.code != http.StatusOK {
		t.Errorf("the round in flight: %d %v %.200s", a.code, a.err, a.body)
	} else if !bytes.Contains(a.body, []byte(`"count": 100`)) {
		t.Errorf("the round in flight did not finish its 100 GETs: %.300s", a.body)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v: %s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "shutting down") {
		t.Errorf("stderr: %s", errOut.String())
	}
}
