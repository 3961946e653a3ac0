package terminal

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/reporttest"
)

// TestWriteLabCheckGolden: lab check's table marks a miss measured while
// the wire's packets came late as busy, and says once what that means; a
// miss on a quiet wire stays a plain FAIL, and a busy row that passed is
// not marked.
func TestWriteLabCheckGolden(t *testing.T) {
	t.Parallel()
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	client := func(name string, exp, got, tol float64, pass bool, late float64) document.ClientCheck {
		return document.ClientCheck{Client: name, Expected: ms(exp), Measured: ms(got), Tolerance: ms(tol), Pass: pass, Late: late}
	}
	rows := []document.CheckRow{
		{Case: "fresh connection, 1 KiB GET", Phase: "connect", RTTs: 1, Expected: ms(40), Measured: ms(40.4), Tolerance: ms(7), Pass: true, Late: 0.2,
			Clients: []document.ClientCheck{client(document.RawClient, 40, 40.4, 7, true, 0.2), client("s3 sdk", 40, 40.6, 7, true, 0)}},
		{Case: "fresh connection, 1 KiB GET", Phase: "wait", RTTs: 1, Expected: ms(41), Measured: ms(55), Tolerance: ms(7), Late: 0.12,
			Clients: []document.ClientCheck{client(document.RawClient, 41, 44, 7, true, 0.01), client("s3 sdk", 41, 55, 7, false, 0.12)}},
		{Case: "reused connection, 1 KiB GET", Phase: "ttfb", RTTs: 1, Expected: ms(41), Measured: ms(60), Tolerance: ms(7), Late: 0.01,
			Clients: []document.ClientCheck{client(document.RawClient, 41, 60, 7, false, 0.01)}},
		{Case: "cold 1 MiB GET (slow start: 7 rounds)", Phase: "total", RTTs: 8, Expected: ms(322), Measured: ms(455), Tolerance: ms(42), Late: 0.3},
		{Case: "warm 1 MiB GET, same connection", Phase: "total", RTTs: 7, Expected: ms(282), Measured: ms(45), Bound: "at most", Pass: true},
	}
	var b bytes.Buffer
	WriteLabCheck(&b, []document.LabCheckMode{{TLS: "plain HTTP", Link: "profile cross-region: round trip 40ms", Rows: rows}})
	got := b.String()
	reporttest.Golden(t, "labcheck.txt.golden", b.Bytes())
	if n := strings.Count(got, "FAIL, busy"); n != 2 {
		t.Errorf("%d busy misses marked, want 2 (the SDK's wait, the cold GET)", n)
	}
	if n := strings.Count(got, "busy:"); n != 1 {
		t.Errorf("the busy note printed %d times, want once", n)
	}
	want := "lab check: 3 row(s) outside tolerance, 2 of them measured while the machine was busy"
	if err := LabCheckError([]document.LabCheckMode{{Rows: rows}}, 3); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if err := LabCheckError(nil, 0); err != nil {
		t.Errorf("no row failed: error %v", err)
	}
}
