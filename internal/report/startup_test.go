package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func seq(from, to float64) []float64 {
	var v []float64
	for x := from; x <= to; x++ {
		v = append(v, x)
	}
	return v
}

func TestTrimTop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"empty", nil, []float64{}},
		{"few: nothing stripped", []float64{3, 1, 2}, []float64{1, 2, 3}},
		{"99: nothing stripped", seq(1, 99), seq(1, 99)},
		{"100: the largest stripped", seq(1, 100), seq(1, 99)},
		{"250: two stripped", seq(1, 250), seq(1, 248)},
		{"1000: ten stripped", seq(1, 1000), seq(1, 990)},
		{"unsorted", append(seq(2, 100), 1000), seq(2, 100)},
		{"NaN dropped", []float64{2, math.NaN(), 1}, []float64{1, 2}},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		got := TrimTop(in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %d values %v..., want %d", tt.name, len(got), got[:min(len(got), 5)], len(tt.want))
		}
		if !slices.EqualFunc(in, tt.in, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Errorf("%s: input modified", tt.name)
		}
	}
}

func TestHistogram(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []float64
		bins int
		want []HistBin
	}{
		{"empty", nil, 4, []HistBin{}},
		{"all equal", []float64{5, 5, 5}, 4, []HistBin{{5, 5, 3}}},
		{"spread", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8}, 4,
			[]HistBin{{0, 2, 2}, {2, 4, 2}, {4, 6, 2}, {6, 8, 3}}},
		{"max in last bin", []float64{10, 20}, 2, []HistBin{{10, 15, 1}, {15, 20, 1}}},
		{"spike", []float64{100, 101, 102, 100, 200}, 5,
			[]HistBin{{100, 120, 4}, {120, 140, 0}, {140, 160, 0}, {160, 180, 0}, {180, 200, 1}}},
		{"NaN and Inf skipped", []float64{1, math.NaN(), 3, math.Inf(1)}, 2, []HistBin{{1, 2, 1}, {2, 3, 1}}},
	}
	for _, tt := range tests {
		got := Histogram(tt.in, tt.bins)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
		total := 0
		for _, b := range got {
			total += b.Count
		}
		if finite := len(slices.DeleteFunc(slices.Clone(tt.in), func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })); total != finite {
			t.Errorf("%s: %d counted, want %d", tt.name, total, finite)
		}
	}
}

func ms(vs ...float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = time.Duration(v * float64(time.Millisecond))
	}
	return out
}

func TestStartupScenarioFrom(t *testing.T) {
	t.Parallel()
	// 100 runs: 1..99 ms and one 10 s spike, which trimming strips.
	wallMs := append(seq(1, 99), 10000)
	s := StartupScenarioFrom("require", 103, 2, 1, ms(wallMs...), ms(seq(1, 100)...), "exit status 1")
	tests := []struct {
		name      string
		got, want StartupStats
	}{
		{"wall", s.WallMs, StartupStats{Median: 50, Mean: 149.5, P90: 90, P99: 99, Min: 1, Max: 10000}},
		{"wall trimmed", s.WallMsTrimmed, StartupStats{Median: 50, Mean: 50, P90: 90, P99: 99, Min: 1, Max: 99}},
		{"load", s.LoadMs, StartupStats{Median: 50, Mean: 50.5, P90: 90, P99: 99, Min: 1, Max: 100}},
		{"load trimmed", s.LoadMsTrimmed, StartupStats{Median: 50, Mean: 50, P90: 90, P99: 99, Min: 1, Max: 99}},
	}
	for _, tt := range tests {
		got := tt.got
		got.Stddev = 0 // checked below
		if got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if sd := s.WallMsTrimmed.Stddev; math.Abs(sd-math.Sqrt((99*99-1)/12.0)) > 1e-9 {
		t.Errorf("trimmed stddev %v", sd)
	}
	if s.WallMs.Stddev < 900 {
		t.Errorf("untrimmed stddev %v does not show the spike", s.WallMs.Stddev)
	}
	if s.Runs != 103 || s.Timeouts != 2 || s.Failures != 1 || s.FirstError != "exit status 1" || s.Scenario != "require" {
		t.Errorf("counts %+v", s)
	}
	if !slices.Equal(s.WallSamplesMs, wallMs) {
		t.Errorf("wall samples %v", s.WallSamplesMs)
	}
	if len(s.Histogram) != histBins || s.Histogram[0].FromMs != 1 || s.Histogram[histBins-1].ToMs != 99 {
		t.Errorf("histogram of the trimmed walls: %v", s.Histogram)
	}
	// Sub-microsecond parts are dropped.
	if got := StartupScenarioFrom("x", 1, 0, 0, []time.Duration{1234567891}, nil, ""); got.WallSamplesMs[0] != 1234.567 {
		t.Errorf("wall sample %v, want 1234.567", got.WallSamplesMs[0])
	}
	empty := StartupScenarioFrom("cpu", 5, 5, 0, nil, nil, "")
	if empty.WallSamplesMs == nil || empty.Histogram == nil || empty.WallMs != (StartupStats{}) {
		t.Errorf("no successful run: %+v", empty)
	}
}

func startupFixture() *StartupDocument {
	var wall, load []time.Duration
	for i := range 200 {
		w := 1200 + float64(i%17)*3.5 + float64(i%5)
		if i == 77 || i == 150 {
			w = 4000 + float64(i) // spikes, stripped by trimming
		}
		wall, load = append(wall, ms(w)...), append(load, ms(w-40)...)
	}
	var cpu []time.Duration
	for i := range 200 {
		cpu = append(cpu, ms(1045+float64(i%3))...)
	}
	return &StartupDocument{
		Schema: Schema, RunID: "20261122T120000-abcdef", Runtime: "node", RuntimeVersion: "v20.20.2",
		EnvLabel: "local-docker", StartedAt: "2026-11-22T12:00:00Z", DurationS: 512.25,
		Client:  ClientInfo{Version: "dev", Go: "go1.26", OS: "linux/amd64", Host: "test", CPUs: 2},
		Options: map[string]string{"modules": "1000", "props": "100", "runs": "200", "seed": "1", "extra": "x"},
		Labels:  map[string]string{"env": "local-docker"},
		Scenarios: []StartupScenario{
			StartupScenarioFrom("require", 203, 2, 1, wall, load, "exit status 1: Error: Cannot find module\n    at foo"),
			StartupScenarioFrom("regenerate", 5, 5, 0, nil, nil, ""),
			StartupScenarioFrom("cpu", 200, 0, 0, cpu, cpu, ""),
		},
	}
}

func TestWriteStartupTextGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	d := startupFixture()
	if err := WriteStartupText(&buf, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "startup.txt.golden", buf.Bytes())
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
	d := startupFixture()
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
	var back StartupDocument
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Scenarios[2].WallSamplesMs) != 200 {
		t.Errorf("read back: %v", err)
	}
}
