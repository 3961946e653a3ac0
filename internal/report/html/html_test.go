package html

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/reporttest"
)

// htmlFixture is two run documents of different targets (one with a hostile
// name), their crossover, a strategies run and two startup environments.
func htmlFixture() HTMLInput {
	a := reporttest.Fixture()
	b := reporttest.Fixture()
	b.RunID = "20261122T130000-bbbbbb"
	b.Target.URL = `gs://<script>alert("x")</script>`
	for i := range b.Results {
		b.Results[i].TTFBms.P50 *= 2
		b.Results[i].MBps.P50 *= 3
	}
	// A size sweep on both, for the size plot.
	for _, d := range []*document.Document{a, b} {
		base := d.Results[2]
		for k, size := range []int64{16 << 10, 1 << 20, 8 << 20} {
			r := base
			r.SizeBytes = size
			r.MBps.P50 = float64(k+1) * 10 * (1 + float64(len(d.RunID)%3))
			d.Results = append(d.Results, r)
		}
	}
	st := &document.StrategiesDocument{
		Envelope: document.Envelope{Schema: document.Schema, RunID: "20261122T140000-cccccc", Target: document.TargetInfo{URL: "gs://objbench", Provider: "gcs"},
			StartedAt: "2026-11-22T14:00:00Z", DurationS: 30},
		Strategies: []document.StrategyRow{
			{Strategy: "sdk-default", Op: "put", Objects: 50, SizeBytes: 0, WallS: 24.5, ObjectsPerS: 2, P50ms: 480, P99ms: 520, Connections: 50, RequestsPerObject: 2, Speedup: 1, Available: true},
			{Strategy: "http2", Op: "put", Objects: 50, SizeBytes: 0, WallS: 0.28, ObjectsPerS: 178, P50ms: 80, P99ms: 90, Connections: 1, RequestsPerObject: 1, Speedup: 88, Available: true},
			{Strategy: "batch", Op: "put", Available: false, Reason: "no batch API on <this> provider"},
		},
		Summary: []string{"put: http2 saves 98.9% of the wall time of sdk-default"},
	}
	s1 := reporttest.StartupFixture()
	s2 := reporttest.StartupFixture()
	s2.RunID, s2.EnvLabel = "20261122T150000-dddddd", "lambda"
	for i := range s2.Scenarios {
		for k := range s2.Scenarios[i].WallSamplesMs {
			s2.Scenarios[i].WallSamplesMs[k] *= 1.5
		}
	}
	return HTMLInput{
		Title: "objbench report", Generated: "2026-11-23T10:00:00Z",
		Runs: []HTMLRun{
			{ID: a.RunID, Label: "lab s3:cross-region", Doc: a, Meta: map[string]string{"command": "run", "host": "test"},
				Quantiles: map[int]StepQuantiles{0: {TTFBms: []float64{70, 71, 72, 74, 76, 78, 80, 82, 85, 88, 92, 100, 110, 140, 160, 170}, TotalMs: []float64{140, 142, 144, 148, 152, 156, 160, 164, 170, 176, 184, 200, 220, 280, 320, 340}}}},
			{ID: b.RunID, Label: `env=<b>gcs</b>`, Doc: b, Meta: map[string]string{"target": b.Target.URL}},
			{ID: st.RunID, Label: "strategies gcs", Doc: st},
			{ID: s1.RunID, Label: "env=local-docker", Doc: s1},
			{ID: s2.RunID, Label: "env=lambda", Doc: s2},
		},
		Crossovers: []document.Crossover{{Op: "get", A: "lab s3:cross-region", B: `env=<b>gcs</b>`, ARunID: a.RunID, BRunID: b.RunID,
			FitA:      document.Fit{TTFBms: 80, MBps: 40, Points: [][2]float64{{16 << 10, 80.4}, {32 << 20, 918}}},
			FitB:      document.Fit{TTFBms: 160, MBps: 120, Points: [][2]float64{{16 << 10, 160.1}, {32 << 20, 440}}},
			SizeBytes: 4.8e6, Faster: `env=<b>gcs</b>`}},
	}
}

func TestWriteHTMLGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, htmlFixture()); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "report.html.golden", buf.Bytes())
}

func TestWriteHTMLPlots(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, htmlFixture()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	// Every plot the issue asks for is there, and each has marks.
	for _, title := range []string{
		"Time to first byte, GET", "Single-stream throughput, GET", "Phases of a GET: first vs later requests (p50)",
		"Object size vs single-stream throughput, get", "Aggregate throughput vs concurrency",
		"Wall time per strategy", "Start-up wall time, require", "Start-up wall time, cpu",
	} {
		if !strings.Contains(page, `aria-label="`+title) {
			t.Errorf("no plot %q", title)
		}
	}
	plots := regexp.MustCompile(`(?s)<svg class="plot".*?</svg>`).FindAllString(page, -1)
	if len(plots) < 8 {
		t.Errorf("%d plots, want at least 8", len(plots))
	}
	for i, p := range plots {
		if !strings.Contains(p, `class="mark"`) {
			t.Errorf("plot %d has no marks: %.200s", i, p)
		}
		if strings.Contains(p, "NaN") || strings.Contains(p, "Inf") {
			t.Errorf("plot %d has a non-finite coordinate", i)
		}
	}
	if !strings.Contains(page, `class="vline"`) || !strings.Contains(page, "crossover 4.8 MB") {
		t.Error("crossover not marked on the size plot")
	}
	// Self-contained: nothing is fetched when the page is opened.
	for _, bad := range []string{"<script", "src=", "http://", "https://", "@import", "url("} {
		s := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	// Names from targets and labels are escaped everywhere, SVG included.
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>gcs") || strings.Contains(page, "<this>") {
		t.Error("a target name reached the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert") {
		t.Error("escaped target name missing")
	}
}

func TestWriteHTMLEmpty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   HTMLInput
	}{
		{"no runs", HTMLInput{}},
		{"run without steps", HTMLInput{Runs: []HTMLRun{{ID: "x", Label: "x", Doc: &document.Document{}}}}},
		{"startup without samples", HTMLInput{Runs: []HTMLRun{{ID: "y", Label: "y", Doc: &document.StartupDocument{Scenarios: []document.StartupScenario{{Scenario: "cpu"}}}}}}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, tt.in); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if strings.Contains(buf.String(), `<svg class="plot"`) {
			t.Errorf("%s: a plot without data was drawn", tt.name)
		}
	}
}

func TestAxisTicks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		a          axis
		vals       []float64
		wantMin    float64
		wantMax    float64
		firstTicks []float64
	}{
		{"log decades", axis{log: true}, []float64{3, 450}, 1, 1000, []float64{1, 2, 5, 10}},
		{"linear from zero", axis{}, []float64{12, 87}, 0, 100, []float64{0, 20, 40}},
		{"single value", axis{}, []float64{0}, 0, 1, []float64{0, 0.2}},
		{"log ignores zero", axis{log: true}, []float64{0, 20, 30}, 10, 100, []float64{10, 20, 50}},
		{"tight near the data", axis{tight: true}, []float64{1064.9, 1141.8}, 1060, 1160, []float64{1060, 1080, 1100}},
		{"tight, wide spread", axis{tight: true}, []float64{93.5, 229.9}, 50, 250, []float64{50, 100, 150}},
		{"tight keeps a negative minimum", axis{tight: true}, []float64{-3, 7}, -4, 8, []float64{-4, -2}},
	}
	for _, tt := range tests {
		a := tt.a
		for _, v := range tt.vals {
			a.include(v)
		}
		a.finish()
		if a.min != tt.wantMin || a.max != tt.wantMax {
			t.Errorf("%s: range %g..%g, want %g..%g", tt.name, a.min, a.max, tt.wantMin, tt.wantMax)
		}
		ticks := a.ticks()
		for i, want := range tt.firstTicks {
			if i >= len(ticks) || ticks[i] != want {
				t.Errorf("%s: ticks %v, want to start %v", tt.name, ticks, tt.firstTicks)
				break
			}
		}
	}
}

// A result with rate steps has its table and the knee in the run's details.
func TestHTMLRateSteps(t *testing.T) {
	t.Parallel()
	d := reporttest.RateStepsFixture()
	var b bytes.Buffer
	if err := WriteHTML(&b, HTMLInput{Runs: []HTMLRun{{ID: d.RunID, Label: "steps", Doc: d}}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{": rate steps</h4>", "<th>goodput/s</th>", "<td>50.5%</td>", "knee: the store pushed back at ~201/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
