package terminal

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// StepStatus is what the progress line and the live status show of a
// step, filled by the caller from its own step type.
type StepStatus struct {
	Workload, Name string
	// Requests bounds the step's operations; Duration its wall time (0: none).
	Requests int
	Duration time.Duration
	// Paced is an open-loop or mixed step: each interval prints a line.
	Paced bool
}

// Progress draws one status line of a run's steps on a terminal; off, it
// is silent. Its methods are safe from the runner's progress goroutine.
type Progress struct {
	mu   sync.Mutex
	line StatusLine
	i, n int
	// Suffix, when set, adds the last interval's figures to the line.
	Suffix func() string
}

// NewProgress draws on w when on (a terminal).
func NewProgress(w io.Writer, on bool) *Progress { return &Progress{line: StatusLine{w: w, on: on}} }

// On reports whether the line is drawn (a terminal).
func (p *Progress) On() bool { return p.line.on }

// Step says step i of n starts.
func (p *Progress) Step(i, n int) {
	p.mu.Lock()
	p.i, p.n = i, n
	p.mu.Unlock()
}

// Update redraws the line: the step's bar, its operations done and time.
func (p *Progress) Update(st StepStatus, done int64, elapsed time.Duration) {
	if !p.line.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	frac := float64(done) / float64(max(st.Requests, 1))
	if st.Duration > 0 {
		frac = max(frac, min(1, elapsed.Seconds()/st.Duration.Seconds()))
	}
	const width = 24
	bar := strings.Repeat("#", int(frac*width)) + strings.Repeat(".", width-int(frac*width))
	line := fmt.Sprintf("[%d/%d] %-12s %-30s [%s] %d/%d %.1fs", p.i, p.n, st.Workload, st.Name, bar, done, st.Requests, elapsed.Seconds())
	if p.Suffix != nil {
		line += " " + p.Suffix()
	}
	p.line.Printf("%s", line)
}

// Done erases the line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line.Clear()
}

// StatusLine is one line of progress on a terminal, redrawn in place
// (Progress's, and strategies', idle-timeout's and startup's); off, it is
// silent.
type StatusLine struct {
	w       io.Writer
	on      bool
	lastLen int
}

// NewStatusLine draws on w when on (a terminal, and not --quiet).
func NewStatusLine(w io.Writer, on bool) *StatusLine { return &StatusLine{w: w, on: on} }

// Printf redraws the line, padded over a longer last one.
func (s *StatusLine) Printf(format string, a ...any) {
	if !s.on {
		return
	}
	line := fmt.Sprintf(format, a...)
	fmt.Fprintf(s.w, "\r%s%s", line, strings.Repeat(" ", max(s.lastLen-len(line), 0)))
	s.lastLen = len(line)
}

// Clear erases the line.
func (s *StatusLine) Clear() {
	if s.on && s.lastLen > 0 {
		fmt.Fprintf(s.w, "\r%s\r", strings.Repeat(" ", s.lastLen))
	}
	s.lastLen = 0
}
