package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
)

func TestWriteOutput(t *testing.T) {
	t.Parallel()
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }
	var stdout bytes.Buffer
	if err := WriteOutput("", &stdout, hello); err != nil || stdout.String() != "hello\n" {
		t.Errorf("stdout: %q, %v", stdout.String(), err)
	}
	path := filepath.Join(t.TempDir(), "out.txt")
	stdout.Reset()
	if err := WriteOutput(path, &stdout, hello); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "hello\n" || stdout.Len() != 0 {
		t.Errorf("-o FILE: file %q, stdout %q", b, stdout.String())
	}
	boom := errors.New("boom")
	if err := WriteOutput(path, &stdout, func(io.Writer) error { return boom }); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "write output") {
		t.Errorf("a failed write: %v", err)
	}
	if err := WriteOutput(filepath.Join(t.TempDir(), "no", "dir"), &stdout, hello); err == nil || !strings.HasPrefix(err.Error(), "output:") {
		t.Errorf("a folder that is not there: %v", err)
	}
}

func TestCheckPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for path, ok := range map[string]bool{"": true, filepath.Join(dir, "r.html"): true, filepath.Join(dir, "no", "r.html"): false} {
		if err := CheckPath(path); (err == nil) != ok {
			t.Errorf("%q: %v", path, err)
		}
	}
}

func TestWriteSaved(t *testing.T) {
	t.Parallel()
	run := &document.Document{Envelope: document.NewEnvelope("run", "r1", time.Unix(0, 0))}
	cases := []struct {
		name   string
		sr     *analysis.Run
		detail bool
		want   func(io.Writer) error
	}{
		{"a run's summary", &analysis.Run{Doc: run}, false, func(w io.Writer) error { return WriteSummary(w, run) }},
		{"a run's every table", &analysis.Run{Doc: run}, true, func(w io.Writer) error { return WriteDetail(w, run) }},
		{"another document's JSON", &analysis.Run{Meta: results.Run{Document: []byte(`{"x":1}`)}}, false,
			func(w io.Writer) error { _, err := io.WriteString(w, "{\"x\":1}\n"); return err }},
	}
	for _, c := range cases {
		var got, want bytes.Buffer
		if err := WriteSaved(&got, c.sr, c.detail); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := c.want(&want); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || got.Len() == 0 {
			t.Errorf("%s: wrote %q, want %q", c.name, got.String(), want.String())
		}
	}
	if err := WriteSeries(io.Discard, &analysis.Run{Meta: results.Run{ID: "s", Command: "strategies"}}, "series"); err == nil || !strings.Contains(err.Error(), "strategies run") {
		t.Errorf("series of a strategies run: %v", err)
	}
}

func TestWriteProbesPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := fixture()
	d.Command = "probe"
	for _, c := range []struct {
		name  string
		path  string
		docs  []*document.Document
		wrote bool
	}{
		{"no --report", "", []*document.Document{d}, false},
		{"no round", filepath.Join(dir, "none.html"), nil, false},
		{"a round", filepath.Join(dir, "round.html"), []*document.Document{d, d}, true},
	} {
		if err := WriteProbesPage(c.path, c.docs); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.path == "" {
			continue
		}
		b, err := os.ReadFile(c.path)
		if wrote := err == nil && bytes.Contains(b, []byte("<html")); wrote != c.wrote {
			t.Errorf("%s: page written %v, want %v (%v)", c.name, wrote, c.wrote, err)
		}
	}
}

func TestWriteProbes(t *testing.T) {
	t.Parallel()
	d := &document.Document{Envelope: document.NewEnvelope("probe", "p1", time.Unix(0, 0))}
	var none bytes.Buffer
	if err := WriteProbes(&none, nil, true, false); err != nil || none.Len() != 0 {
		t.Errorf("no round, --json: %q, %v", none.String(), err)
	}
	for _, c := range []struct {
		json, detail bool
		want         func(io.Writer) error
	}{
		{true, false, func(w io.Writer) error { return WriteProbeJSON(w, []*document.Document{d}) }},
		{false, false, func(w io.Writer) error { return WriteSummary(w, d) }},
		{false, true, func(w io.Writer) error { return WriteDetail(w, d) }},
	} {
		var got, want bytes.Buffer
		if err := WriteProbes(&got, []*document.Document{d}, c.json, c.detail); err != nil {
			t.Fatal(err)
		}
		_ = c.want(&want)
		if got.Len() == 0 || got.String() != want.String() {
			t.Errorf("json %v detail %v: %q, want %q", c.json, c.detail, got.String(), want.String())
		}
	}
	profiles := [][2]string{{"same-region", "one region"}, {"cross-region", "across regions"}}
	if !strings.Contains(ProfileList(profiles), "cross-region") {
		t.Errorf("profile list without cross-region:\n%s", ProfileList(profiles))
	}
}
