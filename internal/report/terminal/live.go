package terminal

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/objbench/objbench/internal/stats"
)

// LiveStatus prints one line per interval of an open-loop or mixed step where
// no progress bar is drawn (not a terminal), and keeps the last interval
// for the progress bar's line otherwise.
type LiveStatus struct {
	mu   sync.Mutex
	w    io.Writer
	on   bool // one line per interval
	last string
	// done is the step's operations completed so far (failed included),
	// printed at the end of each line: a run killed keeps at least that
	// many in its journal.
	done int64
}

// NewLiveStatus prints to w when on (no progress bar is drawn).
func NewLiveStatus(w io.Writer, on bool) *LiveStatus { return &LiveStatus{w: w, on: on} }

// Interval takes one interval's figures of every op of a step.
func (s *LiveStatus) Interval(st StepStatus, ivs []stats.Interval) {
	var b strings.Builder
	var inflight, late, dropped int64
	for _, iv := range ivs {
		d := iv.TotalDist()
		fmt.Fprintf(&b, " %s %.0f/s p50 %.1fms p99 %.1fms", iv.Op, iv.OpsPerS(), d.P50, d.P99)
		if iv.Errors > 0 {
			fmt.Fprintf(&b, " err %d", iv.Errors)
		}
		inflight, late, dropped = iv.InFlight, late+iv.Late, dropped+iv.Dropped
	}
	if len(ivs) > 0 {
		fmt.Fprintf(&b, " | in-flight %d late %d dropped %d conns +%d", inflight, late, dropped, ivs[0].NewConns)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ivs[0].StartS == 0 { // a step's first interval
		s.done = 0
	}
	for _, iv := range ivs {
		s.done += iv.Count + iv.Errors
	}
	if len(ivs) > 0 {
		fmt.Fprintf(&b, " done %d", s.done)
	}
	line := fmt.Sprintf("%6.1fs%s", ivs[0].EndS, b.String())
	s.last = line
	if s.on && st.Paced {
		fmt.Fprintln(s.w, line)
	}
}

// LastLine is the last interval's line, for the progress bar.
func (s *LiveStatus) LastLine() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
