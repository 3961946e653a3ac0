package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/load"
)

// progress draws one status line on a terminal; it is silent otherwise.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	i, n    int
	lastLen int
	// suffix, when set, adds the last interval's figures to the line.
	suffix func() string
}

func newProgress(w io.Writer, on bool) *progress { return &progress{w: w, on: on} }

func (p *progress) step(i, n int) {
	p.mu.Lock()
	p.i, p.n = i, n
	p.mu.Unlock()
}

func (p *progress) update(st *load.Step, done int64, elapsed time.Duration) {
	if !p.on {
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
	line := fmt.Sprintf("[%d/%d] %-12s %-30s [%s] %d/%d %.1fs", p.i, p.n, st.Workload, st.Name(), bar, done, st.Requests, elapsed.Seconds())
	if p.suffix != nil {
		line += " " + p.suffix()
	}
	pad := max(p.lastLen-len(line), 0)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.lastLen = len(line)
}

func (p *progress) done() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastLen > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.lastLen))
	}
}
