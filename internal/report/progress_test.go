package report

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/load"
)

func TestProgress(t *testing.T) {
	t.Parallel()
	st := &load.Step{Workload: "latency", Op: "get", Requests: 100}
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
