package document

import (
	"math"
	"slices"
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
	if len(s.Histogram) != HistBins || s.Histogram[0].FromMs != 1 || s.Histogram[HistBins-1].ToMs != 99 {
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
