// Command runsquery compares `objbench runs` on a database of many saved
// runs with the sqlite3 shell answering the same query on the same file,
// each as a whole process, alternated, side by side. Target: objbench
// within a factor of 2 of sqlite3. It also times each program answering
// nothing, because objbench's start-up (the package initialisation of
// three cloud SDKs) is larger than the sqlite3 shell's whole answer.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/results"
)

func main() {
	n := flag.Int("n", 10000, "saved runs in the database")
	rounds := flag.Int("rounds", 20, "timed executions of each command")
	bin := flag.String("objbench", "", "the objbench binary (required)")
	keep := flag.Bool("keep", false, "keep the database afterwards (for profiling) and print its path")
	flag.Parse()
	if err := run(*n, *rounds, *bin, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "runsquery:", err)
		os.Exit(1)
	}
}

func run(n, rounds int, bin string, keep bool) error {
	if bin == "" {
		return fmt.Errorf("-objbench is required")
	}
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		return fmt.Errorf("no sqlite3 shell: install Debian's sqlite3 package")
	}
	dir, err := os.MkdirTemp("", "runsquery")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	db := filepath.Join(dir, "results.db")
	start := time.Now()
	if err := fill(db, n); err != nil {
		return err
	}
	fmt.Printf("filled %s with %d runs in %.1f s\n", db, n, time.Since(start).Seconds())

	// The last two rows are each program's start-up alone (an empty
	// answer), so the listing's own cost can be read net of it.
	cmds := []struct {
		name string
		args []string
	}{
		{"objbench runs", []string{bin, "runs", "--db", db}},
		{"objbench runs --json", []string{bin, "runs", "--json", "--db", db}},
		{"sqlite3 (same query)", []string{sqlite3, db, results.ListQuery}},
		{"objbench runs --limit 1", []string{bin, "runs", "--limit", "1", "--db", db}},
		{"sqlite3 'SELECT 1'", []string{sqlite3, db, "SELECT 1"}},
	}
	times := make([][]time.Duration, len(cmds))
	for r := 0; r < rounds+1; r++ {
		for i, c := range cmds {
			t0 := time.Now()
			out, err := exec.Command(c.args[0], c.args[1:]...).Output()
			d := time.Since(t0)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if r == 0 { // warm-up; check the answer is whole
				if c.name == "objbench runs --json" {
					var l struct{ Runs []json.RawMessage }
					if err := json.Unmarshal(out, &l); err != nil || len(l.Runs) != n {
						return fmt.Errorf("%s: %d runs listed, want %d (%v)", c.name, len(l.Runs), n, err)
					}
				}
				continue
			}
			times[i] = append(times[i], d)
		}
	}
	med := make([]time.Duration, len(cmds))
	for i := range cmds {
		med[i] = median(times[i])
	}
	base := med[2]
	fmt.Printf("%-24s %10s %10s %8s\n", "command", "median_ms", "min_ms", "ratio")
	for i, c := range cmds {
		fmt.Printf("%-24s %10.1f %10.1f %7.2fx\n", c.name, ms(med[i]), ms(slices.Min(times[i])), float64(med[i])/float64(base))
	}
	ourStart, theirStart := med[3], med[4]
	fmt.Printf("net of start-up: objbench runs %.1f ms, sqlite3 %.1f ms: %.2fx (start-up %.1f ms vs %.1f ms)\n",
		ms(med[0]-ourStart), ms(base-theirStart), float64(med[0]-ourStart)/float64(base-theirStart), ms(ourStart), ms(theirStart))
	return nil
}

// fill saves n runs like those `objbench run` saves (a document, labels,
// two steps), spread over a year.
func fill(db string, n int) error {
	ctx := context.Background()
	st, err := results.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	doc := json.RawMessage(`{"schema":"objbench/v1","run_id":"x","results":[]}`)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := range n {
		run := results.Run{
			ID: fmt.Sprintf("%s-%06x", t0.Add(time.Duration(k)*time.Hour).Format("20060102T150405"), k), Command: "run",
			StartedAt: t0.Add(time.Duration(k) * time.Hour), DurationS: 12.5,
			TargetURL: fmt.Sprintf("s3://bucket-%d", k%8), Provider: "s3", Endpoint: "https://s3.us-east-1.amazonaws.com",
			Host: "bench", Labels: map[string]string{"env": fmt.Sprintf("env-%d", k%4), "region": "us-east-1"}, Document: doc,
		}
		if err := st.Save(ctx, run, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
