package terminal

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/export"
	"github.com/objbench/objbench/internal/results"
)

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
	if err := export.WriteSeries(io.Discard, &analysis.Run{Meta: results.Run{ID: "s", Command: "strategies"}}, "series"); err == nil || !strings.Contains(err.Error(), "strategies run") {
		t.Errorf("series of a strategies run: %v", err)
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
