package startup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needRuntime skips the test when the runtime is absent, except on CI,
// where every runtime must be installed.
func needRuntime(t *testing.T, name string) {
	t.Helper()
	if _, _, err := LookRuntime(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs %s: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
}

// eachRuntime runs fn as a parallel subtest for node and python, each
// skipped when not installed (failed on CI).
func eachRuntime(t *testing.T, fn func(t *testing.T, rt string)) {
	for _, rt := range []string{"node", "python"} {
		t.Run(rt, func(t *testing.T) {
			t.Parallel()
			needRuntime(t, rt)
			fn(t, rt)
		})
	}
}

func small(t *testing.T, runtime string, scenarios ...string) Options {
	return Options{Runtime: runtime, Modules: 20, Props: 10, Runs: 5, Scenarios: scenarios,
		CPUTime: 50 * time.Millisecond, Timeout: 30 * time.Second, Seed: 1, TempDir: t.TempDir()}
}

// assertEmpty fails unless Run left nothing in its temporary folder.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in the temporary folder: %s", e.Name())
	}
}

func TestRunScenarios(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, rt string) {
		o := small(t, rt, ScenarioRequire, ScenarioRegenerate, ScenarioCPU)
		var progress int
		o.Progress = func(string, int, int) { progress++ }
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Runtime != rt || res.RuntimeVersion == "" {
			t.Errorf("runtime %q version %q", res.Runtime, res.RuntimeVersion)
		}
		if progress != 15 {
			t.Errorf("progress called %d times, want 15", progress)
		}
		if len(res.Scenarios) != 3 {
			t.Fatalf("%d scenarios, want 3", len(res.Scenarios))
		}
		for i, s := range res.Scenarios {
			if s.Scenario != o.Scenarios[i] {
				t.Errorf("scenario %d is %q, want %q", i, s.Scenario, o.Scenarios[i])
			}
			if s.Runs != 5 || s.Timeouts != 0 || s.Failures != 0 || len(s.Wall) != 5 || len(s.Load) != 5 {
				t.Errorf("%s: runs %d timeouts %d failures %d walls %d loads %d (%s)",
					s.Scenario, s.Runs, s.Timeouts, s.Failures, len(s.Wall), len(s.Load), s.FirstError)
				continue
			}
			for j := range s.Wall {
				if s.Load[j] <= 0 || s.Load[j] > s.Wall[j] {
					t.Errorf("%s run %d: load %s, wall %s", s.Scenario, j, s.Load[j], s.Wall[j])
				}
				if s.Scenario == ScenarioCPU && s.Wall[j] < o.CPUTime {
					t.Errorf("cpu run %d: wall %s < cpu time %s", j, s.Wall[j], o.CPUTime)
				}
			}
		}
		assertEmpty(t, o.TempDir)
	})
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, rt string) {
		o := small(t, rt, ScenarioRequire, ScenarioCPU)
		o.Timeout = time.Millisecond
		o.CPUTime = 10 * time.Second // were the child not killed, the test would take 50 s
		start := time.Now()
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("timed-out children not killed: Run took %s", d)
		}
		for _, s := range res.Scenarios {
			if s.Runs != 5 || s.Timeouts != 5 || s.Failures != 0 || len(s.Wall) != 0 || len(s.Load) != 0 {
				t.Errorf("%s: runs %d timeouts %d failures %d walls %d (%s)",
					s.Scenario, s.Runs, s.Timeouts, s.Failures, len(s.Wall), s.FirstError)
			}
		}
		assertEmpty(t, o.TempDir)
	})
}

func TestRunCrash(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, rt string) {
		o := small(t, rt, ScenarioRequire, ScenarioRegenerate, ScenarioCPU)
		o.CPUTime = time.Millisecond
		o.Runs = 2
		o.crash = true
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Scenarios {
			if s.Runs != 2 || s.Failures != 2 || s.Timeouts != 0 || len(s.Wall) != 0 {
				t.Errorf("%s: runs %d failures %d timeouts %d walls %d", s.Scenario, s.Runs, s.Failures, s.Timeouts, len(s.Wall))
			}
			if !strings.Contains(s.FirstError, "exit status 3") || !strings.Contains(s.FirstError, "objbench test crash") {
				t.Errorf("%s: first error %q lacks the exit status or stderr", s.Scenario, s.FirstError)
			}
		}
		assertEmpty(t, o.TempDir)
	})
}

func TestRunCancel(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, rt string) {
		for _, scen := range []string{ScenarioRequire, ScenarioRegenerate, ScenarioCPU} {
			o := small(t, rt, scen, ScenarioCPU)
			if scen == ScenarioCPU {
				o.Scenarios = o.Scenarios[:1]
			}
			o.Runs = 1000
			ctx, cancel := context.WithCancel(context.Background())
			o.Progress = func(_ string, done, _ int) {
				if done == 2 {
					cancel()
				}
			}
			res, err := Run(ctx, o)
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: error %v, want context.Canceled", scen, err)
			}
			if res == nil || len(res.Scenarios) != 1 || res.Scenarios[0].Runs != 2 || len(res.Scenarios[0].Wall) != 2 {
				t.Errorf("%s: partial result %+v, want 1 scenario of 2 runs", scen, res)
			}
			assertEmpty(t, o.TempDir)
		}
	})
}

// TestRunCancelMidRun cancels while a child spins: the child is killed and
// the run is not counted.
func TestRunCancelMidRun(t *testing.T) {
	t.Parallel()
	needRuntime(t, "python")
	o := small(t, "python", ScenarioCPU)
	o.CPUTime = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, o)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled child not killed: Run took %s", d)
	}
	if res == nil || len(res.Scenarios) != 1 || res.Scenarios[0].Runs != 0 {
		t.Errorf("result %+v, want one scenario with no run", res)
	}
	assertEmpty(t, o.TempDir)
}

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	for _, rt := range []string{"node", "python"} {
		o := Options{Runtime: rt, Modules: 5, Props: 100, Seed: 7}
		a, b := t.TempDir(), t.TempDir()
		if err := generateModules(a, o); err != nil {
			t.Fatal(err)
		}
		if err := generateModules(b, o); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(a)
		if len(entries) != 6 {
			t.Errorf("%s: %d files, want 5 modules and the entry script", rt, len(entries))
		}
		for _, e := range entries {
			x, _ := os.ReadFile(filepath.Join(a, e.Name()))
			y, _ := os.ReadFile(filepath.Join(b, e.Name()))
			if string(x) != string(y) {
				t.Errorf("%s: %s differs between two generations of the same seed", rt, e.Name())
			}
		}
		if moduleBody(rt, 7, 0, 100) == moduleBody(rt, 8, 0, 100) {
			t.Errorf("%s: seeds 7 and 8 give the same module", rt)
		}
		if got := moduleBody(rt, 7, 0, 0); strings.Contains(got, "p0") {
			t.Errorf("%s: props 0 gave properties: %s", rt, got)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	rt := "python"
	if _, _, err := LookRuntime(rt); err != nil {
		rt = "node"
		needRuntime(t, rt)
	}
	good := func() Options {
		return Options{Runtime: rt, Modules: 10, Props: 5, Runs: 3, Scenarios: []string{"require", "cpu"},
			CPUTime: time.Second, Timeout: time.Second, TempDir: t.TempDir()}
	}
	if err := Validate(good()); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		modify func(*Options)
		want   string
	}{
		{"runtime", func(o *Options) { o.Runtime = "ruby" }, `unknown runtime "ruby"`},
		{"modules", func(o *Options) { o.Modules = 0 }, "modules must be at least 1"},
		{"props", func(o *Options) { o.Props = -1 }, "props must not be negative"},
		{"runs", func(o *Options) { o.Runs = 0 }, "runs must be at least 1"},
		{"no scenario", func(o *Options) { o.Scenarios = nil }, "no scenario"},
		{"scenario", func(o *Options) { o.Scenarios = []string{"require", "bogus"} }, `unknown scenario "bogus"`},
		{"twice", func(o *Options) { o.Scenarios = []string{"cpu", "cpu"} }, `scenario "cpu" given twice`},
		{"cpu time", func(o *Options) { o.CPUTime = -1 }, "cpu time must not be negative"},
		{"timeout", func(o *Options) { o.Timeout = -1 }, "timeout must not be negative"},
		{"temp dir", func(o *Options) { o.TempDir = filepath.Join(file, "sub") }, "is not writable"},
	}
	for _, tt := range tests {
		o := good()
		tt.modify(&o)
		err := Validate(o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q spans lines", tt.name, err)
		}
	}
}

func TestLookRuntimeMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for rt, want := range map[string]string{
		"node":   "node not found on PATH: install Node.js or use --runtime python",
		"python": "python not found on PATH: install Python 3 or use --runtime node",
	} {
		if _, _, err := LookRuntime(rt); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", rt, err, want)
		}
		if err := Validate(Options{Runtime: rt, Modules: 1, Runs: 1, Scenarios: []string{"cpu"}}); err == nil || err.Error() != want {
			t.Errorf("Validate %s: error %v, want %q", rt, err, want)
		}
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	tl := &tail{max: 5}
	_, _ = tl.Write([]byte("abc"))
	_, _ = tl.Write([]byte("defgh"))
	if tl.String() != "defgh" {
		t.Errorf("tail %q, want defgh", tl.String())
	}
}

// TestRunTimeoutKillsChild lets the child start, then kills it mid-spin.
func TestRunTimeoutKillsChild(t *testing.T) {
	t.Parallel()
	needRuntime(t, "node")
	o := small(t, "node", ScenarioCPU)
	o.Runs, o.Timeout, o.CPUTime = 2, 300*time.Millisecond, time.Minute
	start := time.Now()
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timed-out child not killed: Run took %s", d)
	}
	if s := res.Scenarios[0]; s.Runs != 2 || s.Timeouts != 2 || len(s.Wall) != 0 {
		t.Errorf("runs %d timeouts %d walls %d, want 2 timeouts", s.Runs, s.Timeouts, len(s.Wall))
	}
	assertEmpty(t, o.TempDir)
}
