package terminal

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
)

// WriteStartupJSON writes d as the indented objbench/v1 startup document,
// every float finite; d is not modified.
func WriteStartupJSON(w io.Writer, d *document.StartupDocument) error { return writeDoc(w, d) }

// startupOptionOrder is the order of the known options in the header.
var startupOptionOrder = []string{"modules", "props", "runs", "scenario", "cpu_time", "timeout", "seed"}

// histWidth is the longest histogram bar.
const histWidth = 50

// WriteStartupText writes the header, then per scenario a table of the
// wall and load times (all, and with the top 1% stripped), the timeouts
// and failures, and a text histogram of the wall times.
func WriteStartupText(w io.Writer, d *document.StartupDocument) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "objbench startup %s: %s %s", d.RunID, d.Runtime, d.RuntimeVersion)
	if d.EnvLabel != "" {
		fmt.Fprintf(ew, ", env %s", d.EnvLabel)
	}
	fmt.Fprintf(ew, ", %s s", report.Num(document.Finite(d.DurationS)))
	if d.StartedAt != "" {
		fmt.Fprintf(ew, " from %s", d.StartedAt)
	}
	if d.Interrupted {
		fmt.Fprint(ew, " (interrupted: partial results)")
	}
	fmt.Fprintln(ew)
	if len(d.Options) > 0 {
		var parts []string
		for _, k := range startupOptionOrder {
			if v, ok := d.Options[k]; ok {
				parts = append(parts, k+" "+v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(d.Options)) {
			if !slices.Contains(startupOptionOrder, k) {
				parts = append(parts, k+" "+d.Options[k])
			}
		}
		fmt.Fprintln(ew, strings.Join(parts, ", "))
	}
	if len(d.Labels) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(d.Labels)) {
			parts = append(parts, k+"="+d.Labels[k])
		}
		fmt.Fprintf(ew, "labels: %s\n", strings.Join(parts, " "))
	}
	for _, s := range d.Scenarios {
		startupScenarioText(ew, s)
	}
	return ew.err
}

func startupScenarioText(w io.Writer, s document.StartupScenario) {
	ok := len(s.WallSamplesMs)
	fmt.Fprintf(w, "\n%s: %d runs, %d ok, %d timeouts, %d failures\n", s.Scenario, s.Runs, ok, s.Timeouts, s.Failures)
	if s.FirstError != "" {
		fmt.Fprintf(w, "first error: %s\n", strings.ReplaceAll(strings.TrimSpace(s.FirstError), "\n", "\n  "))
	}
	if ok == 0 {
		fmt.Fprintln(w, "no successful run: no times")
		return
	}
	if stripped := ok / 100; stripped > 0 {
		fmt.Fprintf(w, "trimmed: the top 1%% (%d slowest) stripped\n", stripped)
	} else {
		fmt.Fprintln(w, "trimmed: fewer than 100 runs, nothing stripped")
	}
	cols := []document.StartupStats{s.WallMs, s.WallMsTrimmed, s.LoadMs, s.LoadMsTrimmed}
	rows := [][]string{}
	for _, r := range []struct {
		name string
		get  func(document.StartupStats) float64
	}{
		{"median", func(x document.StartupStats) float64 { return x.Median }},
		{"mean", func(x document.StartupStats) float64 { return x.Mean }},
		{"stddev", func(x document.StartupStats) float64 { return x.Stddev }},
		{"p90", func(x document.StartupStats) float64 { return x.P90 }},
		{"p99", func(x document.StartupStats) float64 { return x.P99 }},
		{"min", func(x document.StartupStats) float64 { return x.Min }},
		{"max", func(x document.StartupStats) float64 { return x.Max }},
	} {
		row := []string{r.name}
		for _, c := range cols {
			row = append(row, report.Num(r.get(c)))
		}
		rows = append(rows, row)
	}
	table(w, [][]string{{"wall ms", "wall ms", "load ms", "load ms"}, {"", "trimmed", "", "trimmed"}}, rows)
	histogramText(w, s.Histogram)
}

// histogramText draws the bins as bars of '#', the fullest histWidth long;
// a bin with any value gets at least one '#'.
func histogramText(w io.Writer, h []document.HistBin) {
	if len(h) == 0 {
		return
	}
	fmt.Fprintln(w, "wall ms histogram (top 1% stripped):")
	top := 0
	for _, b := range h {
		top = max(top, b.Count)
	}
	var from, to []string
	fw, tw := 0, 0
	for _, b := range h {
		from, to = append(from, report.Num(b.FromMs)), append(to, report.Num(b.ToMs))
		fw, tw = max(fw, len(from[len(from)-1])), max(tw, len(to[len(to)-1]))
	}
	cw := len(strconv.Itoa(top))
	for i, b := range h {
		bar := 0
		if top > 0 && b.Count > 0 {
			bar = max(1, int(math.Round(float64(b.Count)*histWidth/float64(top))))
		}
		line := fmt.Sprintf("  %*s - %*s  %*d  %s", fw, from[i], tw, to[i], cw, b.Count, strings.Repeat("#", bar))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// StartupRuns draws startup's progress line: scenario's runs done of
// total (startup.Options.Progress).
func (s *StatusLine) StartupRuns(scenario string, done, total int) {
	s.Printf("%-12s %d/%d runs", scenario, done, total)
}
