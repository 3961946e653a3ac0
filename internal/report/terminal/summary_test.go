package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// TestStrategiesOneTablePerOpAndSize: the rows of each size sit under
// their own heading (they once printed under the first size's).
func TestStrategiesOneTablePerOpAndSize(t *testing.T) {
	t.Parallel()
	d := &document.StrategiesDocument{Envelope: document.Envelope{RunID: "r", Target: document.TargetInfo{URL: "gs://b", Provider: "gs"}}}
	for _, op := range []string{"put", "get"} {
		for _, size := range []int64{0, 7 << 10} {
			for _, name := range []string{"sdk-default", "http2"} {
				d.Strategies = append(d.Strategies, document.StrategyRow{Strategy: name, Op: op, Objects: 50, SizeBytes: size,
					Available: true, WallS: 1, ObjectsPerS: 50, RequestsPerObject: 1, Speedup: 1})
			}
		}
	}
	analysis.AnnotateStrategies(d, analysis.DefaultPrices())
	var buf bytes.Buffer
	if err := WriteStrategiesText(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	blocks := strings.Split(out, "\n\n")
	var headings []string
	for _, b := range blocks[1:] {
		lines := strings.Split(strings.TrimSpace(b), "\n")
		if !strings.HasPrefix(lines[0], "50 ") {
			continue
		}
		headings = append(headings, lines[0])
		if rows := len(lines) - 2; rows != 2 {
			t.Errorf("%q has %d rows, want 2:\n%s", lines[0], rows, b)
		}
		if !strings.Contains(lines[1], "$/1M obj") {
			t.Errorf("%q has no cost column", lines[0])
		}
	}
	want := []string{"50 uploads of 0B", "50 uploads of 7KiB", "50 downloads of 0B", "50 downloads of 7KiB"}
	if strings.Join(headings, "|") != strings.Join(want, "|") {
		t.Errorf("headings %q, want %q", headings, want)
	}
	if !strings.Contains(out, "cost at gcs list prices") {
		t.Errorf("no cost lines:\n%s", out)
	}
}

// TestCompareChangedFirst: compare leads with the steps that changed.
func TestCompareChangedFirst(t *testing.T) {
	t.Parallel()
	c := analysis.Comparison{A: "a", B: "b", Steps: []analysis.StepComparison{
		{Step: "latency get 1KiB pooled", Verdict: "no significant difference"},
		{Step: "latency put 1KiB pooled", Verdict: "B slower", A: analysis.StepStats{P50: 10}, B: analysis.StepStats{P50: 20}, DeltaP50: stats.Change{Delta: 10}},
		{Step: "latency head 1KiB pooled", Verdict: "no significant difference"},
		{Step: "latency delete 1KiB pooled", Verdict: "B faster", A: analysis.StepStats{P50: 10}, B: analysis.StepStats{P50: 9}, DeltaP50: stats.Change{Delta: -1}},
	}}
	analysis.AnnotateComparison(&c)
	var buf bytes.Buffer
	WriteComparison(&buf, c)
	out := buf.String()
	order := []string{"put 1KiB", "delete 1KiB", "get 1KiB", "head 1KiB"}
	last := -1
	for _, s := range order {
		i := strings.Index(out, "latency "+s)
		if i < last {
			t.Errorf("%s out of order:\n%s", s, out)
		}
		last = i
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "B is faster on 1 steps, slower on 1, with no significant difference on 2; the largest change is latency put 1KiB pooled") {
		t.Errorf("no compare finding:\n%s", out)
	}
}

// TestSummaryCutKeepsOneScreen: the summary prints at least three findings,
// at most six, and stops before the line budget when findings are long
// (two five-line CPU-limit findings once pushed it to 73 lines).
func TestSummaryCutKeepsOneScreen(t *testing.T) {
	t.Parallel()
	short := document.Finding{Severity: "info", Text: "one line"}
	long := document.Finding{Severity: "warn", Text: strings.Repeat("word ", 100)} // 5 lines at 104
	many := func(f document.Finding, n int) []document.Finding {
		fs := make([]document.Finding, n)
		for i := range fs {
			fs[i] = f
		}
		return fs
	}
	for _, tc := range []struct {
		name string
		fs   []document.Finding
		want int
	}{
		{"none", nil, 0},
		{"two short", many(short, 2), 2},
		{"eight short", many(short, 8), summaryFindings},
		{"five long keeps three", many(long, 5), 3},
		{"long then short fits", append(many(long, 3), short, short), 4},
		{"budget reached", append(many(long, 3), long, short), 3},
	} {
		got := summaryCut(tc.fs)
		if len(got) != tc.want {
			t.Errorf("%s: %d findings, want %d", tc.name, len(got), tc.want)
		}
		lines := 0
		for _, f := range got[min(minFindings, len(got)):] {
			lines += len(wrap(f.Text, findingWidth))
		}
		if len(got) > minFindings && lines > summaryFindingLines {
			t.Errorf("%s: %d lines beyond the first three", tc.name, lines)
		}
	}
}
