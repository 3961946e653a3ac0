package export

import (
	"errors"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/results"
)

func TestWriteExport(t *testing.T) {
	t.Parallel()
	sr := &analysis.Run{Meta: results.Run{ID: "r1", Command: "strategies", Document: []byte(`{"schema":"objbench/v1"}`)}}
	cases := []struct {
		format, want string
		err          error
	}{
		{format: "json", want: `{"schema":"objbench/v1"}` + "\n"},
		{format: "csv", want: "", err: nil},
		{format: "xml", err: ErrFormat},
	}
	for _, c := range cases {
		var b strings.Builder
		err := WriteExport(&b, sr, c.format, nil)
		switch {
		case c.format == "csv":
			if err == nil || !strings.Contains(err.Error(), "strategies run") {
				t.Errorf("csv of a strategies run: %v, want the refusal", err)
			}
		case !errors.Is(err, c.err) || b.String() != c.want:
			t.Errorf("%s: %q, %v; want %q, %v", c.format, b.String(), err, c.want, c.err)
		}
	}
}
