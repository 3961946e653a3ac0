package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/stats"
)

// StartupDocument is the objbench/v1 document of objbench startup (seed
// 002): per scenario, the child's wall and load times.
type StartupDocument struct {
	Schema         string            `json:"schema"` // Schema
	RunID          string            `json:"run_id"`
	Runtime        string            `json:"runtime"`
	RuntimeVersion string            `json:"runtime_version"`
	EnvLabel       string            `json:"env_label,omitempty"`
	StartedAt      string            `json:"started_at"` // RFC 3339
	DurationS      float64           `json:"duration_s"`
	Client         ClientInfo        `json:"client"`
	Options        map[string]string `json:"options,omitempty"`
	Labels         map[string]string `json:"labels,omitempty"`
	Scenarios      []StartupScenario `json:"scenarios"`
	Interrupted    bool              `json:"interrupted,omitempty"`
}

// StartupScenario is one scenario's runs. The trimmed statistics leave out
// the top 1% (the largest values), as seed 002 did.
type StartupScenario struct {
	Scenario      string       `json:"scenario"`
	Runs          int          `json:"runs"`
	Timeouts      int          `json:"timeouts"`
	Failures      int          `json:"failures"`
	WallMs        StartupStats `json:"wall_ms"`
	WallMsTrimmed StartupStats `json:"wall_ms_trimmed"`
	LoadMs        StartupStats `json:"load_ms"`
	LoadMsTrimmed StartupStats `json:"load_ms_trimmed"`
	// Histogram is of the wall times with the top 1% stripped, as seed
	// 002's distribution charts; WallSamplesMs has every value.
	Histogram []HistBin `json:"histogram"`
	// WallSamplesMs is every successful run's wall time, in run order, for
	// compare and distribution plots.
	WallSamplesMs []float64 `json:"wall_samples_ms"`
	FirstError    string    `json:"first_error,omitempty"`
}

// StartupStats summarises times in milliseconds; stddev is the population
// standard deviation, percentiles are nearest-rank.
type StartupStats struct {
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// HistBin is one histogram bin: the values from FromMs up to ToMs (the
// last bin includes ToMs).
type HistBin struct {
	FromMs float64 `json:"from_ms"`
	ToMs   float64 `json:"to_ms"`
	Count  int     `json:"count"`
}

// histBins is how many bins StartupScenarioFrom's histogram has.
const histBins = 20

// StartupScenarioFrom summarises one scenario: wall and load are the
// successful runs' times, in run order.
func StartupScenarioFrom(name string, runs, timeouts, failures int, wall, load []time.Duration, firstErr string) StartupScenario {
	w, l := millis(wall), millis(load)
	wt, lt := TrimTop(w), TrimTop(l)
	return StartupScenario{
		Scenario: name, Runs: runs, Timeouts: timeouts, Failures: failures,
		WallMs: startupStats(w), WallMsTrimmed: startupStats(wt),
		LoadMs: startupStats(l), LoadMsTrimmed: startupStats(lt),
		Histogram:     Histogram(wt, histBins),
		WallSamplesMs: w,
		FirstError:    firstErr,
	}
}

// millis converts to milliseconds, to the microsecond; never nil.
func millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.Microseconds()) / 1000
	}
	return out
}

func startupStats(v []float64) StartupStats {
	d := stats.Percentiles(v)
	return StartupStats{Median: d.P50, Mean: d.Mean, Stddev: d.Stddev, P90: d.P90, P99: d.P99, Min: d.Min, Max: d.Max}
}

// TrimTop returns the values, sorted, without the top 1%: the
// floor(len/100) largest, so one value from 100 values on, none below.
// NaN values are dropped; v is not modified.
func TrimTop(v []float64) []float64 {
	s := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	slices.Sort(s)
	return s[:len(s)-len(s)/100]
}

// Histogram counts v into bins of equal width from its minimum to its
// maximum; all equal values make a single bin, no value no bin.
func Histogram(v []float64, bins int) []HistBin {
	out := []HistBin{}
	var lo, hi float64
	n := 0
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		if n == 0 || x < lo {
			lo = x
		}
		if n == 0 || x > hi {
			hi = x
		}
		n++
	}
	if n == 0 || bins < 1 {
		return out
	}
	if lo == hi {
		return append(out, HistBin{FromMs: lo, ToMs: hi, Count: n})
	}
	width := (hi - lo) / float64(bins)
	for i := range bins {
		out = append(out, HistBin{FromMs: round3(lo + float64(i)*width), ToMs: round3(lo + float64(i+1)*width)})
	}
	out[bins-1].ToMs = hi
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		i := min(int((x-lo)/width), bins-1)
		out[i].Count++
	}
	return out
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// WriteStartupJSON writes d as the indented objbench/v1 startup document,
// every float finite; d is not modified.
func WriteStartupJSON(w io.Writer, d *StartupDocument) error {
	c := *d
	c.DurationS = sanitize(c.DurationS)
	c.Options, c.Labels = maps.Clone(d.Options), maps.Clone(d.Labels)
	c.Scenarios = make([]StartupScenario, len(d.Scenarios))
	for i, s := range d.Scenarios {
		s.WallMs, s.WallMsTrimmed = cleanStartupStats(s.WallMs), cleanStartupStats(s.WallMsTrimmed)
		s.LoadMs, s.LoadMsTrimmed = cleanStartupStats(s.LoadMs), cleanStartupStats(s.LoadMsTrimmed)
		h := make([]HistBin, len(s.Histogram))
		for j, b := range s.Histogram {
			h[j] = HistBin{FromMs: sanitize(b.FromMs), ToMs: sanitize(b.ToMs), Count: b.Count}
		}
		s.Histogram = h
		ws := make([]float64, len(s.WallSamplesMs))
		for j, v := range s.WallSamplesMs {
			ws[j] = sanitize(v)
		}
		s.WallSamplesMs = ws
		c.Scenarios[i] = s
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return fmt.Errorf("write startup JSON: %w", err)
	}
	return nil
}

func cleanStartupStats(s StartupStats) StartupStats {
	return StartupStats{Median: sanitize(s.Median), Mean: sanitize(s.Mean), Stddev: sanitize(s.Stddev),
		P90: sanitize(s.P90), P99: sanitize(s.P99), Min: sanitize(s.Min), Max: sanitize(s.Max)}
}

// startupOptionOrder is the order of the known options in the header.
var startupOptionOrder = []string{"modules", "props", "runs", "scenario", "cpu_time", "timeout", "seed"}

// histWidth is the longest histogram bar.
const histWidth = 50

// WriteStartupText writes the header, then per scenario a table of the
// wall and load times (all, and with the top 1% stripped), the timeouts
// and failures, and a text histogram of the wall times.
func WriteStartupText(w io.Writer, d *StartupDocument) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "objbench startup %s: %s %s", d.RunID, d.Runtime, d.RuntimeVersion)
	if d.EnvLabel != "" {
		fmt.Fprintf(ew, ", env %s", d.EnvLabel)
	}
	fmt.Fprintf(ew, ", %s s", num(sanitize(d.DurationS)))
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

func startupScenarioText(w io.Writer, s StartupScenario) {
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
	cols := []StartupStats{s.WallMs, s.WallMsTrimmed, s.LoadMs, s.LoadMsTrimmed}
	rows := [][]string{}
	for _, r := range []struct {
		name string
		get  func(StartupStats) float64
	}{
		{"median", func(x StartupStats) float64 { return x.Median }},
		{"mean", func(x StartupStats) float64 { return x.Mean }},
		{"stddev", func(x StartupStats) float64 { return x.Stddev }},
		{"p90", func(x StartupStats) float64 { return x.P90 }},
		{"p99", func(x StartupStats) float64 { return x.P99 }},
		{"min", func(x StartupStats) float64 { return x.Min }},
		{"max", func(x StartupStats) float64 { return x.Max }},
	} {
		row := []string{r.name}
		for _, c := range cols {
			row = append(row, num(r.get(c)))
		}
		rows = append(rows, row)
	}
	table(w, [][]string{{"wall ms", "wall ms", "load ms", "load ms"}, {"", "trimmed", "", "trimmed"}}, rows)
	histogramText(w, s.Histogram)
}

// histogramText draws the bins as bars of '#', the fullest histWidth long;
// a bin with any value gets at least one '#'.
func histogramText(w io.Writer, h []HistBin) {
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
		from, to = append(from, num(b.FromMs)), append(to, num(b.ToMs))
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
