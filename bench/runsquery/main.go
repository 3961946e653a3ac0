// Command runsquery compares `objbench runs` on a database of many saved
// runs with the sqlite3 shell answering the same query on the same file,
// each as a whole process, alternated, side by side. Target: objbench
// within a factor of 2 of sqlite3.
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

// query is what results.List runs for `objbench runs` without filters.
const query = `SELECT id, command, started_at, duration_s, target_url, provider, endpoint, host, interrupted, labels FROM runs WHERE 1=1 ORDER BY started_at DESC, id DESC`

func main() {
	n := flag.Int("n", 10000, "saved runs in the database")
	rounds := flag.Int("rounds", 20, "timed executions of each command")
	bin := flag.String("objbench", "", "the objbench binary (required)")
	flag.Parse()
	if err := run(*n, *rounds, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "runsquery:", err)
		os.Exit(1)
	}
}

func run(n, rounds int, bin string) error {
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
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "results.db")
	start := time.Now()
	if err := fill(db, n); err != nil {
		return err
	}
	fmt.Printf("filled %s with %d runs in %.1f s\n", db, n, time.Since(start).Seconds())

	cmds := []struct {
		name string
		args []string
	}{
		{"objbench runs", []string{bin, "runs", "--db", db}},
		{"objbench runs --json", []string{bin, "runs", "--json", "--db", db}},
		{"sqlite3 (same query)", []string{sqlite3, db, query}},
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
	base := median(times[len(cmds)-1])
	fmt.Printf("%-24s %10s %10s %8s\n", "command", "median_ms", "min_ms", "ratio")
	for i, c := range cmds {
		m := median(times[i])
		fmt.Printf("%-24s %10.1f %10.1f %7.2fx\n", c.name, ms(m), ms(slices.Min(times[i])), float64(m)/float64(base))
	}
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
