// Package startup is the engine of objbench startup, which reproduces seed
// 002: a child process loads many small generated modules, again and again,
// and objbench measures how much the child's start-up time varies, against
// a control group that only spins the CPU.
package startup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Scenario names.
const (
	ScenarioRequire    = "require"
	ScenarioRegenerate = "regenerate"
	ScenarioCPU        = "cpu"
)

// Scenarios lists the valid scenarios in their usual order.
var Scenarios = []string{ScenarioRequire, ScenarioRegenerate, ScenarioCPU}

// Options configures Run.
type Options struct {
	Runtime   string        // "node" or "python"
	Modules   int           // modules to generate (>0)
	Props     int           // up to this many random properties per module
	Runs      int           // runs per scenario (>0)
	Scenarios []string      // "require", "regenerate", "cpu"
	CPUTime   time.Duration // for "cpu": spin this long in the child
	Timeout   time.Duration // per run; 0 means unbounded
	Seed      int64         // reproducible module set
	TempDir   string        // where to generate ("" = os.TempDir())
	// Progress, when set, is called after every run, from Run's goroutine.
	Progress func(scenario string, done, total int)

	// crash makes every generated child exit non-zero after printing the
	// marker; for tests.
	crash bool
}

// RunTime is one run of a child.
type RunTime struct {
	Wall, Load time.Duration
	TimedOut   bool
	Err        string
}

// ScenarioResult is one scenario's runs.
type ScenarioResult struct {
	Scenario string
	Runs     int // runs made: successes, timeouts and failures
	Timeouts int
	Failures int
	// Wall is exec start to exit, Load exec start to the marker line, of
	// the successful runs only, in run order.
	Wall, Load []time.Duration
	// FirstError is the first failure's message with its stderr tail.
	FirstError string
}

// Result is what Run measured.
type Result struct {
	Runtime        string
	RuntimeVersion string
	Options        Options
	Scenarios      []ScenarioResult
}

// LookRuntime finds the runtime's executable and version: node --version,
// or python3 --version for "python" (python3, else a python that is 3).
func LookRuntime(name string) (path, version string, err error) {
	var candidates []string
	var hint string
	switch name {
	case "node":
		candidates, hint = []string{"node"}, "install Node.js or use --runtime python"
	case "python", "python3":
		candidates, hint = []string{"python3", "python"}, "install Python 3 or use --runtime node"
	default:
		return "", "", fmt.Errorf("unknown runtime %q: use node or python", name)
	}
	for _, c := range candidates {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, p, "--version").CombinedOutput()
		cancel()
		if err != nil {
			return "", "", fmt.Errorf("%s --version: %v", p, err)
		}
		v := strings.TrimSpace(string(out))
		if name != "node" {
			v = strings.TrimPrefix(v, "Python ")
			if !strings.HasPrefix(v, "3") {
				continue
			}
		}
		return p, v, nil
	}
	short := name
	if short == "python3" {
		short = "python"
	}
	return "", "", fmt.Errorf("%s not found on PATH: %s", short, hint)
}

// Validate returns a clear one-line error for bad options.
func Validate(o Options) error {
	if _, _, err := LookRuntime(o.Runtime); err != nil {
		return err
	}
	switch {
	case o.Modules <= 0:
		return fmt.Errorf("modules must be at least 1, not %d", o.Modules)
	case o.Props < 0:
		return fmt.Errorf("props must not be negative, not %d", o.Props)
	case o.Runs <= 0:
		return fmt.Errorf("runs must be at least 1, not %d", o.Runs)
	case o.CPUTime < 0:
		return fmt.Errorf("cpu time must not be negative, not %s", o.CPUTime)
	case o.Timeout < 0:
		return fmt.Errorf("timeout must not be negative, not %s", o.Timeout)
	case len(o.Scenarios) == 0:
		return errors.New("no scenario: use require, regenerate or cpu")
	}
	seen := map[string]bool{}
	for _, s := range o.Scenarios {
		switch s {
		case ScenarioRequire, ScenarioRegenerate, ScenarioCPU:
		default:
			return fmt.Errorf("unknown scenario %q: use require, regenerate or cpu", s)
		}
		if seen[s] {
			return fmt.Errorf("scenario %q given twice", s)
		}
		seen[s] = true
	}
	dir := tempDir(o)
	probe, err := os.MkdirTemp(dir, "objbench-check-*")
	if err != nil {
		return fmt.Errorf("temporary folder %s is not writable: %v", dir, unwrapPath(err))
	}
	_ = os.Remove(probe)
	return nil
}

func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}

func tempDir(o Options) string {
	if o.TempDir != "" {
		return o.TempDir
	}
	return os.TempDir()
}

// Run executes the scenarios in order, o.Runs runs each. The generated
// folders live in one temporary folder removed at the end, also when ctx
// is cancelled; then Run returns the results so far with ctx.Err().
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := Validate(o); err != nil {
		return nil, err
	}
	if o.Runtime == "python3" {
		o.Runtime = "python"
	}
	path, version, err := LookRuntime(o.Runtime)
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp(tempDir(o), "objbench-startup-*")
	if err != nil {
		return nil, fmt.Errorf("create temporary folder: %w", err)
	}
	defer os.RemoveAll(root)

	res := &Result{Runtime: o.Runtime, RuntimeVersion: version, Options: o}
	r := &runner{o: o, path: path, root: root}
	for _, s := range o.Scenarios {
		sr, err := r.scenario(ctx, s)
		res.Scenarios = append(res.Scenarios, sr)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

type runner struct {
	o    Options
	path string // the runtime's executable
	root string // the run's temporary folder
}

// args are the runtime's arguments to execute the entry script of a
// generated folder.
func (r *runner) args() []string {
	if r.o.Runtime == "node" {
		return []string{entry("node")}
	}
	// -B: write no .pyc files, so every run compiles the modules afresh
	// as node does; otherwise the first run would cache bytecode and the
	// later ones would measure a different thing.
	return []string{"-B", entry("python")}
}

// scenario makes o.Runs runs of scenario s. Its error is a set-up failure
// or ctx's error; the result holds the runs made so far.
func (r *runner) scenario(ctx context.Context, s string) (ScenarioResult, error) {
	sr := ScenarioResult{Scenario: s, Wall: []time.Duration{}, Load: []time.Duration{}}
	dir := filepath.Join(r.root, s)
	switch s {
	case ScenarioRequire, ScenarioCPU:
		if err := os.Mkdir(dir, 0o755); err != nil {
			return sr, fmt.Errorf("create scenario folder: %w", err)
		}
		defer os.RemoveAll(dir)
		gen := generateModules
		if s == ScenarioCPU {
			gen = generateCPU
		}
		if err := gen(dir, r.o); err != nil {
			return sr, err
		}
	}
	for i := range r.o.Runs {
		if err := ctx.Err(); err != nil {
			return sr, err
		}
		runDir := dir
		if s == ScenarioRegenerate {
			d, err := os.MkdirTemp(r.root, "regenerate-*")
			if err != nil {
				return sr, fmt.Errorf("create run folder: %w", err)
			}
			runDir = d
			if err := generateModules(d, r.o); err != nil {
				_ = os.RemoveAll(d)
				return sr, err
			}
		}
		rt := r.once(ctx, runDir)
		if s == ScenarioRegenerate {
			_ = os.RemoveAll(runDir)
		}
		if err := ctx.Err(); err != nil {
			return sr, err // the run was cut short by the cancellation: not counted
		}
		sr.Runs++
		switch {
		case rt.TimedOut:
			sr.Timeouts++
		case rt.Err != "":
			sr.Failures++
			if sr.FirstError == "" {
				sr.FirstError = rt.Err
			}
		default:
			sr.Wall = append(sr.Wall, rt.Wall)
			sr.Load = append(sr.Load, rt.Load)
		}
		if r.o.Progress != nil {
			r.o.Progress(s, i+1, r.o.Runs)
		}
	}
	return sr, nil
}

// once runs the child in dir and times it with the parent's clock: Wall
// from just before exec to its exit, Load to when the marker line is read.
func (r *runner) once(ctx context.Context, dir string) RunTime {
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if r.o.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, r.o.Timeout)
	}
	defer cancel()
	cmd := exec.CommandContext(runCtx, r.path, r.args()...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	ownGroup(cmd)
	// Should a grandchild keep the pipes open, Wait gives up after this.
	cmd.WaitDelay = 2 * time.Second
	stderr := &tail{max: 2048}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return RunTime{Err: err.Error()}
	}
	timedOut := func() bool {
		return errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		if timedOut() {
			return RunTime{TimedOut: true}
		}
		return RunTime{Err: fmt.Sprintf("start %s: %v", r.path, err)}
	}
	var load time.Duration
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if load == 0 && strings.HasPrefix(sc.Text(), Marker) {
			load = time.Since(start)
		}
	}
	_, _ = io.Copy(io.Discard, stdout) // a line too long stops the scanner
	err = cmd.Wait()
	wall := time.Since(start)
	switch {
	case timedOut():
		return RunTime{TimedOut: true}
	case err != nil:
		return RunTime{Err: failure(err, stderr.String())}
	case load == 0:
		return RunTime{Err: failure(errors.New("the child exited without printing "+Marker), stderr.String())}
	}
	return RunTime{Wall: wall, Load: load}
}

func failure(err error, stderr string) string {
	msg := err.Error()
	if s := strings.TrimSpace(stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.buf) }
