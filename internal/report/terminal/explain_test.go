package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/reporttest"
)

func TestWriteExplainTextGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteExplain(&buf, reporttest.ExplainFixture(), true); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "explain.txt.golden", buf.Bytes())
}

func TestWriteLabRecord(t *testing.T) {
	t.Parallel()
	full := reporttest.ExplainFixture()
	var text bytes.Buffer
	if err := WriteExplainText(&text, full); err != nil {
		t.Fatal(err)
	}
	const note = "objbench lab: the record kept the first requests only; 3 more were served, not recorded\n"
	const none = "objbench lab: no request reached the lab\n"
	empty := reporttest.ExplainFixture()
	empty.Explain.Requests = 0
	for _, c := range []struct {
		name    string
		d       *document.ExplainDocument
		dropped int
		want    string
	}{
		{"recorded", full, 0, text.String()},
		{"bound reached", full, 3, note + text.String()},
		{"no request", empty, 0, none},
	} {
		var buf bytes.Buffer
		if err := WriteLabRecord(&buf, c.d, c.dropped); err != nil || buf.String() != c.want {
			t.Errorf("%s: wrote %q (%v), want %q", c.name, buf.String(), err, c.want)
		}
	}
}

func TestWriteExplainComparison(t *testing.T) {
	t.Parallel()
	a, b := reporttest.ExplainFixture(), reporttest.ExplainFixture()
	b.Explain.Connections, b.Explain.TLSHandshakes, b.Explain.WallS = 1, 1, 0.9
	c := analysis.Comparison{A: a.RunID, B: "b", Explain: analysis.CompareExplain(a, b)}
	var buf bytes.Buffer
	WriteComparison(&buf, c)
	for _, want := range []string{"connections", "-50%", "better", "round_trips_per_object"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestExplainHeaderNetwork: the header says which path carried the program
// (lab.network), and the fallback's note when there is one.
func TestExplainHeaderNetwork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ network, note, want, notWant string }{
		{"netns", "", "network netns (the program's own kernel TCP on the emulated wire)", "lab: network namespaces"},
		{"netstack", "network namespaces unavailable (operation not permitted): the program reaches the lab through local endpoints",
			"lab: network namespaces unavailable (operation not permitted)", "network netns"},
	} {
		d := reporttest.ExplainFixture()
		d.Lab.Network, d.Lab.NetworkNote = tc.network, tc.note
		var buf bytes.Buffer
		if err := WriteExplainText(&buf, d); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.notWant) || !strings.Contains(out, "network "+tc.network) {
			t.Errorf("network %s: header\n%s", tc.network, out[:strings.Index(out, "\nwall")])
		}
	}
}
