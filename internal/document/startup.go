package document

import (
	"math"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/stats"
)

// StartupDocument is the objbench/v1 document of objbench startup (seed
// 002): per scenario, the child's wall and load times.
type StartupDocument struct {
	Envelope
	Runtime        string            `json:"runtime"`
	RuntimeVersion string            `json:"runtime_version"`
	EnvLabel       string            `json:"env_label,omitempty"`
	Scenarios      []StartupScenario `json:"scenarios"`
}

// StartupScenario is one scenario's runs. The trimmed statistics leave out
// the top 1% (the largest values).
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

// HistBins is how many bins StartupScenarioFrom's histogram has.
const HistBins = 20

// StartupScenarioFrom summarises one scenario: wall and load are the
// successful runs' times, in run order.
func StartupScenarioFrom(name string, runs, timeouts, failures int, wall, load []time.Duration, firstErr string) StartupScenario {
	w, l := millis(wall), millis(load)
	wt, lt := TrimTop(w), TrimTop(l)
	return StartupScenario{
		Scenario: name, Runs: runs, Timeouts: timeouts, Failures: failures,
		WallMs: startupStats(w), WallMsTrimmed: startupStats(wt),
		LoadMs: startupStats(l), LoadMsTrimmed: startupStats(lt),
		Histogram:     Histogram(wt, HistBins),
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
