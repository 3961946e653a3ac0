package cli

import (
	"io"
	"time"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/report"
)

// progress is report.Progress under the names run.go calls.
type progress struct{ *report.Progress }

func newProgress(w io.Writer, on bool) progress { return progress{report.NewProgress(w, on)} }

func (p progress) step(i, n int) { p.Step(i, n) }
func (p progress) update(st *load.Step, done int64, elapsed time.Duration) {
	p.Update(st, done, elapsed)
}
func (p progress) done() { p.Done() }
