package terminal

import (
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	t.Parallel()
	st := StepStatus{Workload: "latency", Name: "get", Requests: 100}
	var off strings.Builder
	p := NewProgress(&off, false)
	p.Step(1, 2)
	p.Update(st, 50, time.Second)
	p.Done()
	if off.Len() != 0 {
		t.Errorf("off, it drew %q", off.String())
	}
	var on strings.Builder
	p = NewProgress(&on, true)
	p.Step(1, 2)
	p.Update(st, 50, 1500*time.Millisecond)
	line := on.String()
	if !strings.HasPrefix(line, "\r[1/2] latency") || !strings.Contains(line, "[############............] 50/100 1.5s") {
		t.Errorf("line %q", line)
	}
	p.Done()
	if got := strings.TrimPrefix(on.String(), line); got != "\r"+strings.Repeat(" ", len(line)-1)+"\r" {
		t.Errorf("done wrote %q, want the line erased", got)
	}
}

func TestStatusLine(t *testing.T) {
	t.Parallel()
	var off strings.Builder
	s := NewStatusLine(&off, false)
	s.Printf("put %d", 1)
	s.Clear()
	if off.Len() != 0 {
		t.Errorf("off, it drew %q", off.String())
	}
	var on strings.Builder
	s = NewStatusLine(&on, true)
	s.Printf("round %d: probing", 1)
	s.Printf("x")
	if want := "\rround 1: probing" + "\rx" + strings.Repeat(" ", len("round 1: probing")-1); on.String() != want {
		t.Errorf("drew %q, want %q (a shorter line pads over the last)", on.String(), want)
	}
	on.Reset()
	s.Clear()
	if want := "\r \r"; on.String() != want {
		t.Errorf("clear wrote %q, want %q (the last line's width)", on.String(), want)
	}
	on.Reset()
	s.Clear()
	if on.Len() != 0 {
		t.Errorf("a second clear wrote %q", on.String())
	}
}

// TestCommandStatusLines: the progress lines of idle-timeout, strategies
// and startup, as each command draws them.
func TestCommandStatusLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		draw func(*StatusLine)
		want string
	}{
		{"idle-timeout", func(s *StatusLine) { s.IdleRound(2, []time.Duration{time.Second, 5 * time.Second, 20 * time.Second}) }, "round 2: probing 1s … 20s idle"},
		{"strategies", func(s *StatusLine) { s.Strategy("get", 50, 7*1024, "parallel") }, "get 50 × 7KiB: parallel"},
		{"startup", func(s *StatusLine) { s.StartupRuns("require", 3, 1000) }, "require      3/1000 runs"},
	} {
		var b strings.Builder
		c.draw(NewStatusLine(&b, true))
		if b.String() != "\r"+c.want {
			t.Errorf("%s: drew %q, want %q", c.name, b.String(), "\r"+c.want)
		}
	}
}
