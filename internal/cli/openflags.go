package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
)

// openFlags are the flags of open-loop (--rate) and mixed runs.
type openFlags struct {
	rate        string
	arrivals    string
	step        time.Duration
	maxInflight int
	maxLate     time.Duration
	latencyFrom string
	mix         string
	keys        int
	keyDist     string
	interval    time.Duration

	profile load.RateProfile   // parsed rate
	shares  map[string]float64 // a mix's op shares (0 to 1)
}

// defaultMixSizes is the object size of a mix when --sizes keeps the
// throughput workload's default.
const defaultMixSizes = "4KiB"

func (o *openFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.rate, "rate", "", "open loop: operations per second across all workers (500), a linear ramp (100:2000:60s) or steps (100,500,1000 with --step); latency is then measured from each operation's intended start")
	fl.StringVar(&o.arrivals, "arrivals", string(load.Uniform), "open loop: uniform (evenly spaced) or poisson (exponential gaps) arrivals")
	fl.DurationVar(&o.step, "step", 0, "open loop: time at each rate of a --rate list")
	fl.IntVar(&o.maxInflight, "max-inflight", 64, "open loop and mixed: operations in flight at most (the workers); an arrival with none free starts late")
	fl.DurationVar(&o.maxLate, "max-late", 0, "open loop: drop (and count) an operation that could only start later than this after its time (0: never drop)")
	fl.StringVar(&o.latencyFrom, "latency-from", "", "open loop: measure latency from the 'intended' start (default, free of coordinated omission) or the 'actual' send; the other is reported beside it")
	fl.StringVar(&o.mix, "mix", "get=70,put=20,list=5,head=3,delete=2", "mixed: operations in percent, adding up to 100 (get, put, list, head, delete)")
	fl.IntVar(&o.keys, "keys", 100, "mixed: objects in the working set, written before the measured step")
	fl.StringVar(&o.keyDist, "key-dist", "uniform", "mixed: key popularity: uniform or zipf:S (S > 1, e.g. zipf:1.1)")
	fl.DurationVar(&o.interval, "interval", time.Second, "length of each interval of the results over time (at least 10ms)")
}

// apply checks the flags and sets the open-loop and mix options.
func (o *openFlags) apply(opts *load.Options, sizes string, defaultSizes string) error {
	if o.interval < 10*time.Millisecond {
		return usagef("--interval must be at least 10ms, got %s", o.interval)
	}
	if o.maxInflight <= 0 {
		return usagef("--max-inflight must be a positive count, got %d", o.maxInflight)
	}
	if o.maxLate < 0 {
		return usagef("--max-late must not be negative")
	}
	arr := load.Arrivals(strings.ToLower(o.arrivals))
	if arr != load.Uniform && arr != load.Poisson {
		return usagef("--arrivals: unknown %q: use uniform or poisson", o.arrivals)
	}
	switch o.latencyFrom {
	case "", load.FromIntended, load.FromActual:
	default:
		return usagef("--latency-from: unknown %q: use intended or actual", o.latencyFrom)
	}
	if o.rate != "" {
		p, err := load.ParseRate(o.rate, o.step)
		if err != nil {
			return usagef("--rate: %w", err)
		}
		o.profile = p
		// A ramp or steps run to their end unless --duration says otherwise.
		if span := p.Span(); opts.Duration == load.Defaults().Duration && span > opts.Duration {
			opts.Duration = span
		}
		opts.Pace = func() load.Pacer {
			return &load.OpenLoop{Profile: p, Arrivals: arr, MaxLate: o.maxLate}
		}
		opts.MaxInflight, opts.LatencyFrom = o.maxInflight, o.latencyFrom
	} else if o.latencyFrom != "" || o.maxLate > 0 || o.step > 0 {
		return usagef("--latency-from, --max-late and --step need --rate")
	}
	mixed := false
	for _, w := range opts.Workloads {
		mixed = mixed || w == load.Mixed
	}
	if !mixed {
		return nil
	}
	var err error
	if opts.Mix.Ops, err = load.ParseMix(o.mix); err != nil {
		return usagef("--mix: %w", err)
	}
	o.shares = map[string]float64{}
	for _, w := range opts.Mix.Ops {
		o.shares[w.Value] = w.Weight / 100
	}
	if sizes == defaultSizes {
		sizes = defaultMixSizes
	}
	if opts.Mix.Sizes, err = load.ParseSizeDist(sizes); err != nil {
		return usagef("--sizes: %w", err)
	}
	if o.keys <= 0 {
		return usagef("--keys must be a positive count, got %d", o.keys)
	}
	opts.Mix.Keys = o.keys
	if opts.Mix.Dist, err = load.ParseKeyDist(o.keyDist); err != nil {
		return usagef("--key-dist: %w", err)
	}
	opts.MaxInflight = o.maxInflight
	return nil
}

// addTo adds the open-loop and mix options to the run document's options.
func (o *openFlags) addTo(m map[string]string) {
	m["interval"] = o.interval.String()
	if o.rate != "" {
		m["rate"], m["arrivals"], m["max_inflight"], m["max_late"] = o.rate, o.arrivals, fmt.Sprint(o.maxInflight), o.maxLate.String()
		m["latency_from"] = o.origin()
		if o.step > 0 {
			m["step"] = o.step.String()
		}
	}
	if strings.Contains(m["workload"], load.Mixed) {
		m["mix"], m["keys"], m["key_dist"] = o.mix, fmt.Sprint(o.keys), o.keyDist
	}
}

func (o *openFlags) origin() string {
	if o.latencyFrom == "" {
		return load.FromIntended
	}
	return o.latencyFrom
}

// openLoopInto adds a step's open-loop facts to its result.
func (o *openFlags) openLoopInto(r *document.Result, res *load.StepResult) {
	if res.Uncorrected != nil {
		r.SetUncorrected(*res.Uncorrected)
	}
	if o.rate == "" {
		return
	}
	done := float64(res.Summary.Count + res.Summary.Errors)
	offered := o.profile.Expected(res.Wall)
	if share, ok := o.shares[res.Step.Op]; ok && res.Step.Workload == load.Mixed {
		offered *= share // this op's part of the mix
	}
	r.OpenLoop = &document.OpenLoop{Rate: o.rate, Arrivals: o.arrivals, LatencyFrom: o.origin(), MaxInflight: o.maxInflight,
		OfferedOps: offered, Late: res.Late, Dropped: res.Dropped,
		MaxStartLagMs: float64(res.StartLag) / 1e6}
	l := res.StartLags
	r.OpenLoop.StartLagMs = document.PhaseDist{P50: l.P50, P90: l.P90, P99: l.P99, P999: l.P999, Mean: l.Mean}
	if s := res.Wall.Seconds(); s > 0 {
		r.OpenLoop.AchievedOpsPerS = done / s
	}
}
