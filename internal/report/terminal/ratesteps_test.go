package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/report/reporttest"
)

// A result with rate steps shows a row per step and the knee, in the
// summary and in --detail.
func TestRateStepsTable(t *testing.T) {
	t.Parallel()
	d := reporttest.RateStepsFixture()
	for name, write := range map[string]func(*bytes.Buffer) error{
		"summary": func(b *bytes.Buffer) error { return WriteSummary(b, d) },
		"detail":  func(b *bytes.Buffer) error { return WriteDetail(b, d) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{": rate steps", "offered/s", "goodput/s", "4.0-6.0 s", "50.5%",
			"knee: the store pushed back at ~201/s (400/s offered, 50% throttled); goodput settled at 201/s; hot prefix run/mix/"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
		if row := lineWith(out, "4.0-6.0 s"); !strings.Contains(row, " 400 ") || !strings.Contains(row, " 201 ") || !strings.HasSuffix(row, " 12     398") {
			t.Errorf("%s: the last step's row %q", name, row)
		}
	}
}

func lineWith(s, sub string) string {
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			return strings.TrimRight(line, "\n")
		}
	}
	return ""
}
