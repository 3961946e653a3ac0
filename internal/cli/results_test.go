package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestResultsLifecycle: runs are saved, listed, shown, exported, compared,
// reported and deleted, all from one temporary database.
func TestResultsLifecycle(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "results.db")
	ctx := context.Background()
	sweep := []string{"--workload", "throughput", "--sizes", "64KiB,1MiB,4MiB", "--size-count", "5", "-q", "--db", db}
	// Two targets: a near, slow link and a far, fast one, so that their
	// download lines cross.
	code, _, errOut := runCLI(t, ctx, append([]string{"run", "lab", "--rtt", "2ms", "--bandwidth", "100Mbit", "--label", "side=near", "--json"}, sweep...)...)
	if code != 0 {
		t.Fatalf("run A: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, ctx, append([]string{"run", "lab", "--lab-api", "gcs", "--rtt", "40ms", "--bandwidth", "1Gbit", "--label", "side=far", "--json"}, sweep...)...)
	if code != 0 {
		t.Fatalf("run B: exit %d: %s", code, errOut)
	}

	code, out, errOut := runCLI(t, ctx, "runs", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("runs: exit %d: %s", code, errOut)
	}
	var list struct {
		Runs []struct {
			RunID   string            `json:"run_id"`
			Command string            `json:"command"`
			Target  string            `json:"target"`
			Labels  map[string]string `json:"labels"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Runs) != 2 {
		t.Fatalf("runs --json: %v %s", err, out)
	}
	b, a := list.Runs[0], list.Runs[1] // newest first
	if a.Labels["side"] != "near" || b.Labels["side"] != "far" || a.Command != "run" {
		t.Fatalf("order or labels wrong: %+v", list.Runs)
	}
	code, out, _ = runCLI(t, ctx, "runs", "--db", db, "--label", "side=far")
	if code != 0 || !strings.Contains(out, b.RunID) || strings.Contains(out, a.RunID) {
		t.Errorf("runs --label side=far:\n%s", out)
	}

	code, out, _ = runCLI(t, ctx, "show", a.RunID[:len(a.RunID)-2], "--db", db)
	if code != 0 || !strings.Contains(out, "throughput  count") || !strings.Contains(out, "cost at s3 list prices") {
		t.Errorf("show by prefix: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, ctx, "show", a.RunID[:len(a.RunID)-2], "--db", db, "--detail")
	if code != 0 || !strings.Contains(out, "throughput: time to first byte") {
		t.Errorf("show --detail: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, ctx, "export", a.RunID, "--format", "samples", "--db", db)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 1+30 || !strings.Contains(lines[0], "connect_ms") || !strings.Contains(lines[0], "wait_ms") {
		t.Errorf("export samples: exit %d, %d lines, header %q", code, len(lines), lines[0])
	}
	code, out, _ = runCLI(t, ctx, "export", a.RunID, "--format", "csv", "--db", db)
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 1+6 {
		t.Errorf("export csv: exit %d\n%s", code, out)
	}

	code, out, errOut = runCLI(t, ctx, "compare", a.RunID, b.RunID, "--db", db, "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	var cmp struct {
		Comparisons []struct {
			Steps []struct {
				Step     string `json:"step"`
				Verdict  string `json:"verdict"`
				DeltaP50 struct {
					Delta float64 `json:"delta"`
					Lo    float64 `json:"ci95_lo"`
					Hi    float64 `json:"ci95_hi"`
				} `json:"delta_p50_ms"`
				MW *float64 `json:"mann_whitney_p"`
			} `json:"steps"`
			Crossovers []struct {
				Op        string  `json:"op"`
				SizeBytes float64 `json:"size_bytes"`
				Faster    string  `json:"faster"`
			} `json:"crossovers"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || len(cmp.Comparisons) != 1 {
		t.Fatalf("compare --json: %v\n%s", err, out)
	}
	c := cmp.Comparisons[0]
	if len(c.Steps) != 6 {
		t.Errorf("%d steps compared, want 6", len(c.Steps))
	}
	for _, s := range c.Steps {
		if s.Verdict == "" || s.DeltaP50.Lo > s.DeltaP50.Delta || s.DeltaP50.Hi < s.DeltaP50.Delta {
			t.Errorf("%s: %+v", s.Step, s)
		}
		// The lab's network is real TCP in user space: under -race its CPU
		// time swamps a 2 ms path, so the timing verdicts are checked in
		// scripts/test's timing step.
		if strings.Contains(s.Step, "64KiB") && s.Verdict != "B slower" && !raceDetector {
			t.Errorf("%s: verdict %q, want B slower (40 ms against 2 ms round trips)", s.Step, s.Verdict)
		}
	}
	var get *struct {
		Op        string  `json:"op"`
		SizeBytes float64 `json:"size_bytes"`
		Faster    string  `json:"faster"`
	}
	for i := range c.Crossovers {
		if c.Crossovers[i].Op == "get" {
			get = &c.Crossovers[i]
		}
	}
	// On the lab's network (real TCP: slow start, a busy machine's CPU)
	// five samples per size do not always place the lines' crossing: when
	// compare finds one, it must be the far side faster above 100 kB-4 MiB.
	switch {
	case get == nil || get.Faster == "":
		t.Logf("get crossover %+v: not found in this run's samples", get)
	case (get.SizeBytes < 100e3 || get.SizeBytes > 4<<20 || get.Faster != "side=far") && !raceDetector:
		t.Errorf("get crossover %+v, want the far, fast side faster above a size between 100 kB and 4 MiB", get)
	}
	code, out, _ = runCLI(t, ctx, "compare", a.RunID, b.RunID, "--db", db)
	if code != 0 || !strings.Contains(out, "crossover (get)") && get != nil && get.Faster != "" && !raceDetector || !strings.Contains(out, "[95% CI]") {
		t.Errorf("compare text:\n%s", out)
	}

	page := filepath.Join(t.TempDir(), "report.html")
	code, _, errOut = runCLI(t, ctx, "report", a.RunID, b.RunID, "-o", page, "--db", db)
	if code != 0 || !strings.Contains(errOut, "wrote "+page) {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	checkReportPage(t, page, []string{a.RunID, b.RunID, "side=near", "side=far", "crossover"},
		[]string{"Time to first byte, GET", "Single-stream throughput, GET", "Object size vs single-stream throughput, get"})

	code, out, _ = runCLI(t, ctx, "delete", b.RunID, "--db", db)
	if code != 0 || !strings.Contains(out, "deleted") {
		t.Errorf("delete: exit %d %s", code, out)
	}
	code, _, errOut = runCLI(t, ctx, "show", b.RunID, "--db", db)
	if code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("show after delete: exit %d %s", code, errOut)
	}
}

func TestStrategiesSavedAndNoSave(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "results.db")
	ctx := context.Background()
	code, _, errOut := runCLI(t, ctx, "strategies", "lab", "--lab-api", "s3", "--size", "0", "--objects", "3", "--json", "-q", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page := filepath.Join(t.TempDir(), "run.html")
	code, _, errOut = runCLI(t, ctx, "run", "--workload", "latency", "--gets", "5", "--op-sizes", "0", "--op-count", "1", "-q", "--json", "--no-save", "--db", db, "--report", page)
	if code != 0 {
		t.Fatalf("run --no-save --report: exit %d: %s", code, errOut)
	}
	checkReportPage(t, page, []string{"lab s3:local"}, []string{"Time to first byte, GET", "Phases of a GET"})
	code, out, _ := runCLI(t, ctx, "runs", "--db", db, "--json")
	if code != 0 || strings.Count(out, `"run_id"`) != 1 || !strings.Contains(out, `"command":"strategies"`) {
		t.Errorf("runs after strategies and a --no-save run:\n%s", out)
	}
	_, out, _ = runCLI(t, ctx, "runs", "--db", db)
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	code, out, _ = runCLI(t, ctx, "show", id, "--db", db)
	if code != 0 || !strings.Contains(out, "reused-connection") {
		t.Errorf("show strategies:\n%s", out)
	}
}

// checkReportPage checks a written report: it names what it must, and
// every plot it must have is there with drawn marks.
func checkReportPage(t *testing.T, path string, texts, plots []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, s := range texts {
		if !strings.Contains(page, s) {
			t.Errorf("%s: no %q", filepath.Base(path), s)
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg class="plot".*?</svg>`).FindAllString(page, -1)
	for _, p := range plots {
		i := slices.IndexFunc(svgs, func(svg string) bool { return strings.Contains(svg, `aria-label="`+p) })
		switch {
		case i < 0:
			t.Errorf("%s: no plot %q", filepath.Base(path), p)
		case !strings.Contains(svgs[i], `class="mark"`):
			t.Errorf("%s: plot %q has no marks", filepath.Base(path), p)
		}
	}
}

func TestResultsBadInput(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "results.db")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--label", "novalue", "--db", db}, 2, "key=value"},
		{[]string{"show", "--db", db}, 2, "one RUN"},
		{[]string{"show", "nosuchrun", "--db", db}, 1, "not found"},
		{[]string{"compare", "onlyone", "--db", db}, 2, "at least two"},
		{[]string{"runs", "--since", "yesterday", "--db", db}, 2, "--since"},
		{[]string{"export", "x", "--format", "xml", "--db", db}, 1, "not found"},
		{[]string{"report", "--db", db}, 1, "no saved runs"},
		{[]string{"report", "nosuchrun", "--db", db}, 1, "not found"},
		{[]string{"run", "--report", "/nonexistent/folder/r.html", "--db", db}, 2, "does not exist"},
	} {
		code, _, errOut := runCLI(t, context.Background(), tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want %d %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
