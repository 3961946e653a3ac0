package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/report/reporttest"
)

func TestWriteExplainHTMLGolden(t *testing.T) {
	t.Parallel()
	d := reporttest.ExplainFixture()
	var buf bytes.Buffer
	in := HTMLInput{Title: "objbench report", Generated: "2026-11-23T12:00:00Z",
		Runs: []HTMLRun{{ID: d.RunID, Label: "explain python3", Doc: d}}}
	if err := WriteHTML(&buf, in); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if strings.Contains(html, "<naive>") || !strings.Contains(html, `id="explain"`) || strings.Count(html, `class="mark"`) != 4 {
		t.Errorf("waterfall: want the program name escaped and 4 marks (2 handshakes, 2 requests)")
	}
	reporttest.Golden(t, "explain.html.golden", buf.Bytes())
}
