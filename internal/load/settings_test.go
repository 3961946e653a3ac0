package load

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/usage"
)

// openDefaults are the command line's defaults for the open-loop flags.
func openDefaults() OpenSettings {
	return OpenSettings{Arrivals: "uniform", MaxInflight: 64, Mix: "get=70,put=20,list=5,head=3,delete=2", Keys: 100,
		KeyDist: "uniform", Interval: time.Second}
}

func TestOpenSettingsApply(t *testing.T) {
	t.Parallel()
	const defSizes = "16KiB,256KiB"
	cases := []struct {
		name      string
		workloads []string
		sizes     string
		edit      func(*OpenSettings)
		check     func(*testing.T, Options)
		err       string
	}{
		{name: "closed loop sets nothing", workloads: []string{"latency"}, check: func(t *testing.T, o Options) {
			if o.Pace != nil || o.MaxInflight != 0 || o.Mix.Ops != nil || o.Duration != Defaults().Duration {
				t.Errorf("closed loop: pace %v, inflight %d, mix %v, duration %s", o.Pace != nil, o.MaxInflight, o.Mix.Ops, o.Duration)
			}
		}},
		{name: "a rate paces every step", workloads: []string{"latency"}, edit: func(s *OpenSettings) { s.Rate, s.LatencyFrom = "500", "actual" },
			check: func(t *testing.T, o Options) {
				if o.Pace == nil || o.MaxInflight != 64 || o.LatencyFrom != FromActual {
					t.Fatalf("--rate 500: pace %v, inflight %d, from %q", o.Pace != nil, o.MaxInflight, o.LatencyFrom)
				}
				if p, ok := o.Pace().(*OpenLoop); !ok || p.Arrivals != Uniform {
					t.Errorf("pacer %#v", o.Pace())
				}
			}},
		{name: "a ramp longer than the default duration runs to its end", workloads: []string{"latency"},
			edit: func(s *OpenSettings) { s.Rate = "100:200:90s" }, check: func(t *testing.T, o Options) {
				if o.Duration != 90*time.Second {
					t.Errorf("duration %s, want the ramp's 90s", o.Duration)
				}
			}},
		{name: "poisson arrivals, any case", workloads: []string{"latency"}, edit: func(s *OpenSettings) { s.Rate, s.Arrivals = "10", "Poisson" },
			check: func(t *testing.T, o Options) {
				if p := o.Pace().(*OpenLoop); p.Arrivals != Poisson {
					t.Errorf("arrivals %q", p.Arrivals)
				}
			}},
		{name: "a mix keeps the mix's size when --sizes is the default", workloads: []string{Mixed}, sizes: defSizes,
			check: func(t *testing.T, o Options) {
				if len(o.Mix.Ops) != 5 || len(o.Mix.Sizes) != 1 || o.Mix.Sizes[0].Value != 4096 || o.Mix.Keys != 100 || o.MaxInflight != 64 {
					t.Errorf("mix %+v, inflight %d", o.Mix, o.MaxInflight)
				}
			}},
		{name: "a mix takes a size distribution", workloads: []string{Mixed}, sizes: "4KiB:50,1MiB:50", check: func(t *testing.T, o Options) {
			if len(o.Mix.Sizes) != 2 {
				t.Errorf("sizes %+v", o.Mix.Sizes)
			}
		}},
		{name: "interval under 10ms", edit: func(s *OpenSettings) { s.Interval = 9 * time.Millisecond }, err: "Interval"},
		{name: "no workers", edit: func(s *OpenSettings) { s.MaxInflight = 0 }, err: "MaxInflight"},
		{name: "negative max late", edit: func(s *OpenSettings) { s.MaxLate = -1 }, err: "MaxLate"},
		{name: "unknown arrivals", edit: func(s *OpenSettings) { s.Arrivals = "bursty" }, err: "Arrivals"},
		{name: "unknown latency origin", edit: func(s *OpenSettings) { s.LatencyFrom = "sent" }, err: "LatencyFrom"},
		{name: "bad rate", edit: func(s *OpenSettings) { s.Rate = "fast" }, err: "Rate"},
		{name: "open-loop flags without a rate", edit: func(s *OpenSettings) { s.Step = time.Second }, err: "LatencyFrom"},
		{name: "bad mix", workloads: []string{Mixed}, edit: func(s *OpenSettings) { s.Mix = "get=50" }, err: "Mix"},
		{name: "a bad mix outside a mixed run is not read", workloads: []string{"latency"}, edit: func(s *OpenSettings) { s.Mix = "get=50" },
			check: func(*testing.T, Options) {}},
		{name: "no keys", workloads: []string{Mixed}, edit: func(s *OpenSettings) { s.Keys = 0 }, err: "Keys"},
		{name: "bad key popularity", workloads: []string{Mixed}, edit: func(s *OpenSettings) { s.KeyDist = "zipf:0.5" }, err: "KeyDist"},
		{name: "bad sizes", workloads: []string{Mixed}, sizes: "big", err: "Sizes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := openDefaults()
			if c.edit != nil {
				c.edit(&s)
			}
			o := Defaults()
			if c.workloads != nil {
				o.Workloads = c.workloads
			}
			sizes := c.sizes
			if sizes == "" {
				sizes = defSizes
			}
			err := s.Apply(&o, sizes, defSizes)
			if c.err != "" {
				checkField(t, err, c.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, o)
		})
	}
}

func TestOpenSettingsOffered(t *testing.T) {
	t.Parallel()
	mixed := &Step{Workload: Mixed, Op: "put"}
	cases := []struct {
		name, rate string
		step       *Step
		wall       time.Duration
		want       float64
	}{
		{"closed loop offers nothing", "", &Step{Workload: "latency", Op: "get"}, 10 * time.Second, 0},
		{"a fixed rate over the wall time", "100", &Step{Workload: "latency", Op: "get"}, 10 * time.Second, 1000},
		{"a mixed op gets its share", "100", mixed, 10 * time.Second, 200},
		{"a ramp's integral", "100:300:10s", &Step{Workload: "latency", Op: "get"}, 10 * time.Second, 2000},
	}
	for _, c := range cases {
		s := openDefaults()
		s.Rate = c.rate
		o := Defaults()
		o.Workloads = []string{Mixed}
		if err := s.Apply(&o, "4KiB", "4KiB"); err != nil {
			t.Fatal(err)
		}
		if got := s.Offered(&StepResult{Step: c.step, Wall: c.wall}); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%s: offered %g, want %g", c.name, got, c.want)
		}
	}
}

func TestOpenSettingsAddTo(t *testing.T) {
	t.Parallel()
	s := openDefaults()
	m := map[string]string{"workload": "latency"}
	s.AddTo(m)
	if m["interval"] != "1s" || m["rate"] != "" || m["mix"] != "" {
		t.Errorf("closed loop options %v", m)
	}
	s.Rate, s.Step = "100,200", time.Second
	m = map[string]string{"workload": "latency,mixed"}
	s.AddTo(m)
	if m["rate"] != "100,200" || m["latency_from"] != FromIntended || m["step"] != "1s" || m["max_inflight"] != "64" || m["keys"] != "100" {
		t.Errorf("open-loop mixed options %v", m)
	}
}

// runDefaults are the command line's defaults for run's workload flags.
func runDefaults() RunSettings {
	return RunSettings{Workloads: "latency,throughput,concurrency", Objects: 10, ObjectSize: "1KiB", Gets: 1000, LatencyConcurrency: 1,
		OpSizes: "0,1KiB", OpCount: 10, Sizes: "16KiB,1MiB", SizeCount: 5, Levels: "1,5", LevelSize: "32MiB", Duration: 30 * time.Second, MaxAttempts: 1}
}

func TestRunSettingsOptions(t *testing.T) {
	t.Parallel()
	o, err := runDefaults().Options()
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Workloads) != 3 || o.PoolSize != 1024 || len(o.OpSizes) != 2 || o.Sizes[1] != 1<<20 || o.Levels[1] != 5 || o.LevelSize != 32<<20 || o.Gets != 1000 {
		t.Errorf("options %+v", o)
	}
	cases := []struct {
		edit func(*RunSettings)
		err  string
	}{
		{func(s *RunSettings) { s.Workloads = "speed" }, "Workloads"},
		{func(s *RunSettings) { s.Objects = 0 }, "Objects"},
		{func(s *RunSettings) { s.Gets = -1 }, "Gets"},
		{func(s *RunSettings) { s.LatencyConcurrency = 0 }, "LatencyConcurrency"},
		{func(s *RunSettings) { s.OpCount = 0 }, "OpCount"},
		{func(s *RunSettings) { s.SizeCount = 0 }, "SizeCount"},
		{func(s *RunSettings) { s.MaxAttempts = 0 }, "MaxAttempts"},
		{func(s *RunSettings) { s.Requests = -1 }, "Requests"},
		{func(s *RunSettings) { s.Duration = -1 }, "Duration"},
		{func(s *RunSettings) { s.ObjectSize = "x" }, "ObjectSize"},
		{func(s *RunSettings) { s.OpSizes = "x" }, "OpSizes"},
		{func(s *RunSettings) { s.Sizes = "4KiB:50,1MiB:50" }, "Sizes"},
		{func(s *RunSettings) { s.Levels = "a" }, "Levels"},
		{func(s *RunSettings) { s.LevelSize = "x" }, "LevelSize"},
	}
	for _, c := range cases {
		s := runDefaults()
		c.edit(&s)
		_, err := s.Options()
		checkField(t, err, c.err)
	}
	// A mix's weighted sizes are read by the mix, not as a size list.
	s := runDefaults()
	s.Workloads, s.Sizes = "mixed", "4KiB:50,1MiB:50"
	if _, err := s.Options(); err != nil {
		t.Errorf("mixed with weighted sizes: %v", err)
	}
	m := runDefaults().AsMap()
	if m["workload"] != "latency,throughput,concurrency" || m["concurrency"] != "1,5" || m["duration"] != "30s" || m["max_attempts"] != "1" || len(m) != 13 {
		t.Errorf("options block %v", m)
	}
}

// checkField fails unless err is a usage error naming field, with no flag
// text: the command line names the flag.
func checkField(t *testing.T, err error, field string) {
	t.Helper()
	if !usage.Is(err) || usage.FieldOf(err) != field || strings.Contains(err.Error(), "--") {
		t.Errorf("error %v (field %q), want a usage error naming the field %q and no flag", err, usage.FieldOf(err), field)
	}
}
