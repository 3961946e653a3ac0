package explain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
)

// Errors Run returns beside a document (the program ran) or alone.
var (
	// ErrNoRequests says the program never reached the lab.
	ErrNoRequests = errors.New("made no request to the lab")
	// ErrTimeout says the program ran past its --timeout and was stopped.
	ErrTimeout = errors.New("timed out")
)

// Config is one explain run.
type Config struct {
	// Lab configures the lab; APIs default to all three (Azure dropped
	// when Azurite is missing).
	Lab  lab.Config
	Argv []string
	// Timeout stops the program (and its process group) after it; 0 is none.
	Timeout time.Duration
	Stdin   io.Reader
	// Output receives the program's standard output and error, kept apart
	// from objbench's own (see PrefixWriter); CloseOutput, when set, flushes
	// or closes it once the program is done (its error is Run's when Run
	// has none).
	Output      io.Writer
	CloseOutput func() error
	Prices      analysis.Prices
	// RunID and Labels go into the envelope, with Options(Argv, Timeout).
	RunID  string
	Labels map[string]string
}

// Options are an explain document's options: the command, redacted (see
// Redact), and the timeout.
func Options(argv []string, timeout time.Duration) map[string]string {
	return map[string]string{"command": strings.Join(Redact(argv), " "), "timeout": timeout.String()}
}

// Run starts a recording lab, runs the program against it, and explains
// what it did. The document is returned whenever the program ran (with
// ErrTimeout, or with a nil error and a non-zero ExitCode for a program
// that failed); ErrNoRequests comes alone, its message naming what the
// program probably ignored. A start failure of the lab or the program is
// returned as such (lab.ErrCommandNotFound for a missing command).
func Run(ctx context.Context, cfg Config) (*document.ExplainDocument, error) {
	d, err := runProgram(ctx, cfg)
	if cfg.CloseOutput != nil {
		if cerr := cfg.CloseOutput(); err == nil && cerr != nil {
			err = fmt.Errorf("program output: %w", cerr)
		}
	}
	return d, err
}

func runProgram(ctx context.Context, cfg Config) (*document.ExplainDocument, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("no command to run")
	}
	if _, err := exec.LookPath(cfg.Argv[0]); err != nil { // before starting anything
		return nil, fmt.Errorf("%q: %w", cfg.Argv[0], lab.ErrCommandNotFound)
	}
	cfg.Lab.Record = true
	l, _, _, err := lab.StartAll(ctx, cfg.Lab)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	started := time.Now()
	runCtx, cancel := bounded(ctx, cfg.Timeout)
	defer cancel()
	tail := &tailBuffer{max: 64 << 10}
	out := io.MultiWriter(cfg.Output, tail)
	w := startWatch(l.ProgramListen, l.ProgramHosts())
	code, err := l.ExecEnv(runCtx, cfg.Argv, w.env(), cfg.Stdin, out, out)
	end := time.Now()
	w.Close()
	if err != nil {
		return nil, err
	}
	hint := realCloud(w.Hosts(), tail.String())
	timedOut := cfg.Timeout > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	name := filepath.Base(cfg.Argv[0])
	d := FromLab(l, cfg.Argv, code, started, end, cfg.Prices, hint)
	if ctx.Err() != nil { // interrupted: what was recorded, if anything
		if d.Explain.Requests == 0 {
			return nil, ctx.Err()
		}
		d.Interrupted = true
		return d, ctx.Err()
	}
	if d.Explain.Requests == 0 {
		msg := fmt.Sprintf("%s %s", name, ErrNoRequests)
		if hint != "" {
			msg = fmt.Sprintf("%s %s: %s", name, ErrNoRequests, hint)
		} else {
			msg += "; is it reading AWS_ENDPOINT_URL (or STORAGE_EMULATOR_HOST, AZURE_STORAGE_CONNECTION_STRING)?"
		}
		switch {
		case timedOut:
			msg += fmt.Sprintf(" (stopped after --timeout %s)", cfg.Timeout)
		case code != 0:
			msg += fmt.Sprintf(" (it exited with status %d)", code)
		}
		return nil, &NoRequestsError{Msg: msg, ExitCode: code, TimedOut: timedOut}
	}
	if cfg.RunID != "" {
		d.RunID = cfg.RunID
	}
	d.Labels, d.Options = cfg.Labels, Options(cfg.Argv, cfg.Timeout)
	if timedOut {
		d.Interrupted = true
		return d, fmt.Errorf("%s %w after %s and was stopped", name, ErrTimeout, cfg.Timeout)
	}
	return d, nil
}

// FromLab explains what l recorded between start and end: the program
// argv (nil for whatever connected to a foreground lab) and its exit
// status; cloud, when not empty, says the program also reached for a real
// cloud (see realCloud). It waits briefly for connections closing as the
// program exited.
func FromLab(l *lab.Lab, argv []string, code int, start, end time.Time, prices analysis.Prices, cloud string) *document.ExplainDocument {
	l.Recorder().WaitClosed(2*l.Link().RTT + 200*time.Millisecond)
	n := l.Network()
	in := Input{Program: Redact(argv), ExitCode: code, Conns: l.Recorder().Snapshot(), Start: start, End: end, RTT: l.Link().RTT,
		IdleTimeout: l.IdleTimeout(), HTTP2Offered: l.CAPEM() != nil}
	if n.Model != "direct" {
		in.MSS, in.RecvBuffer = lab.MSS(n.MTU), n.RecvBuffer
	}
	e := Analyze(in)
	e.Source = SourceLab
	env := document.NewEnvelope("explain", document.NewRunID(), start)
	env.Target = document.TargetInfo{URL: "lab", Provider: "lab", Endpoint: l.LocalEndpoint(mainAPI(e))}
	env.Lab = l.Info(mainAPI(e))
	env.DurationS = end.Sub(start).Seconds()
	d := &document.ExplainDocument{Envelope: env, Explain: e}
	d.Explain.Findings = Findings(&d.Explain, in)
	if f, ok := NagleStall(in); ok {
		d.Explain.Findings = append(d.Explain.Findings, f)
	}
	d.Explain.WhatIf = WhatIf(&d.Explain)
	if cloud != "" && e.Requests > 0 {
		d.Explain.Findings = append([]document.Finding{{ID: "explain-real-cloud", Severity: "high", Text: "Some requests went elsewhere: " + cloud + "."}}, d.Explain.Findings...)
	}
	Price(d, prices)
	return d
}

// NoRequestsError is ErrNoRequests with its one-line message and the
// program's exit status.
type NoRequestsError struct {
	Msg      string
	ExitCode int
	TimedOut bool
}

func (e *NoRequestsError) Error() string { return e.Msg }
func (e *NoRequestsError) Unwrap() error {
	if e.TimedOut {
		return ErrTimeout
	}
	return ErrNoRequests
}

// mainAPI is the API most requests used.
func mainAPI(e document.Explain) string {
	n := map[string]int{}
	best := "s3"
	for _, c := range e.Conns {
		n[c.API] += len(c.Requests)
		if n[c.API] > n[best] {
			best = c.API
		}
	}
	return best
}

// cloudHints are traces of a real cloud endpoint in a program's output,
// with the variable the program probably ignored.
var cloudHints = []struct{ marker, host, cloud, variable string }{
	{"amazonaws.com", "amazonaws.com", "AWS", "AWS_ENDPOINT_URL (boto3 reads it from 1.28; else pass endpoint_url=)"},
	{"InvalidAccessKeyId", "", "AWS (the lab's keys were refused: InvalidAccessKeyId)", "AWS_ENDPOINT_URL"},
	{"googleapis.com", "googleapis.com", "Google Cloud Storage", "STORAGE_EMULATOR_HOST"},
	{"core.windows.net", "core.windows.net", "Azure", "AZURE_STORAGE_CONNECTION_STRING"},
}

// realCloud names the real cloud the program reached for: a cloud host it
// asked the proxy for, else a trace in its output; "" when none.
func realCloud(hosts []string, output string) string {
	for _, h := range hosts {
		if hint := cloudHost(h); hint != "" {
			return hint
		}
	}
	return cloudHint(output)
}

// cloudHint names the real cloud a program's output shows it reached for
// and the variable it probably ignored; "" when there is no trace.
func cloudHint(out string) string {
	for _, h := range cloudHints {
		if strings.Contains(out, h.marker) {
			cloud := h.cloud
			if h.host != "" {
				cloud += " (" + h.host + ")"
			}
			return fmt.Sprintf("it reached for %s, which the lab cannot see; it probably ignored %s", cloud, h.variable)
		}
	}
	return ""
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// PrefixWriter writes each line of a program's output to w with prefix
// before it, so that it cannot be mistaken for objbench's. Safe for the
// program's stdout and stderr at once; Flush writes an unfinished last line.
type PrefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	line   []byte
}

// NewPrefixWriter prefixes every line written to it.
func NewPrefixWriter(w io.Writer, prefix string) *PrefixWriter {
	return &PrefixWriter{w: w, prefix: prefix}
}

func (p *PrefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.line = append(p.line, b...)
			break
		}
		p.line = append(p.line, b[:i+1]...)
		if _, err := io.WriteString(p.w, p.prefix+string(p.line)); err != nil {
			return 0, err
		}
		p.line = p.line[:0]
		b = b[i+1:]
	}
	return n, nil
}

// Flush writes what remains of an unfinished line.
func (p *PrefixWriter) Flush() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.line) == 0 {
		return nil
	}
	_, err := io.WriteString(p.w, p.prefix+string(p.line)+"\n")
	p.line = p.line[:0]
	return err
}

// bounded is ctx for the program's run: limited to timeout when there is
// one (explain's --timeout), cancelled when the run ends either way.
func bounded(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
	}
	return context.WithCancel(ctx)
}
