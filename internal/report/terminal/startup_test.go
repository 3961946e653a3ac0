package terminal

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/reporttest"
)

func TestWriteStartupTextGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	d := reporttest.StartupFixture()
	if err := WriteStartupText(&buf, d); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "startup.txt.golden", buf.Bytes())
	for _, want := range []string{"node v20.20.2", "env local-docker", "modules 1000, props 100, runs 200",
		"2 timeouts, 1 failures", "(2 slowest) stripped", strings.Repeat("#", histWidth)} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q", want)
		}
	}
	for line := range strings.Lines(buf.String()) {
		if n := strings.Count(line, "#"); n > histWidth {
			t.Errorf("bar longer than %d: %q", histWidth, line)
		}
	}
	d.Interrupted = true
	buf.Reset()
	_ = WriteStartupText(&buf, d)
	if !strings.Contains(buf.String(), "interrupted: partial results") {
		t.Error("interrupted run not marked")
	}
}

func TestWriteStartupJSON(t *testing.T) {
	t.Parallel()
	d := reporttest.StartupFixture()
	d.DurationS = math.NaN()
	d.Scenarios[0].WallMs.Mean = math.Inf(1)
	var buf bytes.Buffer
	if err := WriteStartupJSON(&buf, d); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(d.DurationS) || !math.IsInf(d.Scenarios[0].WallMs.Mean, 1) {
		t.Error("WriteStartupJSON modified the document")
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "run_id", "runtime", "runtime_version", "env_label", "started_at",
		"duration_s", "client", "options", "labels", "scenarios"} {
		if _, ok := m[k]; !ok {
			t.Errorf("document lacks %q", k)
		}
	}
	if m["schema"] != "objbench/v1" {
		t.Errorf("schema %v", m["schema"])
	}
	scen := m["scenarios"].([]any)
	s0 := scen[0].(map[string]any)
	for _, k := range []string{"scenario", "runs", "timeouts", "failures", "wall_ms", "wall_ms_trimmed", "load_ms",
		"load_ms_trimmed", "histogram", "wall_samples_ms", "first_error"} {
		if _, ok := s0[k]; !ok {
			t.Errorf("scenario lacks %q", k)
		}
	}
	for _, k := range []string{"median", "mean", "stddev", "p90", "p99", "min", "max"} {
		if _, ok := s0["wall_ms"].(map[string]any)[k]; !ok {
			t.Errorf("wall_ms lacks %q", k)
		}
	}
	for _, k := range []string{"from_ms", "to_ms", "count"} {
		if _, ok := s0["histogram"].([]any)[0].(map[string]any)[k]; !ok {
			t.Errorf("histogram bin lacks %q", k)
		}
	}
	// A scenario without a successful run has empty lists, not null.
	s1 := scen[1].(map[string]any)
	if s1["histogram"] == nil || s1["wall_samples_ms"] == nil {
		t.Errorf("empty scenario has null lists: %v", s1)
	}
	if _, ok := m["interrupted"]; ok {
		t.Error("interrupted written when false")
	}
	// It reads back into the struct.
	var back document.StartupDocument
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Scenarios[2].WallSamplesMs) != 200 {
		t.Errorf("read back: %v", err)
	}
}
