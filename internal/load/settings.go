package load

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

// OpenSettings are the open-loop (--rate) and mix flags as the user writes
// them; Apply checks them and sets the options they mean.
type OpenSettings struct {
	Rate        string
	Arrivals    string
	Step        time.Duration
	MaxInflight int
	MaxLate     time.Duration
	LatencyFrom string
	Mix         string
	Keys        int
	KeyDist     string
	Interval    time.Duration

	profile RateProfile        // parsed Rate
	shares  map[string]float64 // a mix's op shares (0 to 1)
}

// DivideRate makes the parsed rate one n-th of the total (a shard's part),
// so that the offered operations a step reports are this shard's.
func (o *OpenSettings) DivideRate(n int) { o.profile = o.profile.Divided(n) }

// Divided is the profile with every rate divided by n, the shape (ramp,
// steps) unchanged.
func (p RateProfile) Divided(n int) RateProfile {
	if n <= 1 || len(p.Rates) == 0 {
		return p
	}
	out := p
	out.Rates = make([]float64, len(p.Rates))
	for i, r := range p.Rates {
		out.Rates[i] = r / float64(n)
	}
	return out
}

// DefaultMixSizes is the object size of a mix when --sizes keeps the
// throughput workload's default.
const DefaultMixSizes = "4KiB"

// Apply checks the settings and sets the open-loop and mix options; sizes
// is RunSettings.Sizes (a mix's size distribution, unless it is
// defaultSizes). Every error is a usage.Error naming the setting's field.
func (o *OpenSettings) Apply(opts *Options, sizes string, defaultSizes string) error {
	if o.Interval < 10*time.Millisecond {
		return usage.Fieldf("{Interval} must be at least 10ms, got %s", o.Interval)
	}
	if o.MaxInflight <= 0 {
		return usage.Fieldf("{MaxInflight} must be a positive count, got %d", o.MaxInflight)
	}
	if o.MaxLate < 0 {
		return usage.Fieldf("{MaxLate} must not be negative")
	}
	arr := Arrivals(strings.ToLower(o.Arrivals))
	if arr != Uniform && arr != Poisson {
		return usage.Fieldf("{Arrivals}: unknown %q: use uniform or poisson", o.Arrivals)
	}
	switch o.LatencyFrom {
	case "", FromIntended, FromActual:
	default:
		return usage.Fieldf("{LatencyFrom}: unknown %q: use intended or actual", o.LatencyFrom)
	}
	if o.Rate != "" {
		p, err := ParseRate(o.Rate, o.Step)
		if err != nil {
			return usage.Fieldf("{Rate}: %w", err)
		}
		o.profile = p
		// A ramp or steps run to their end unless --duration says otherwise.
		if span := p.Span(); opts.Duration == Defaults().Duration && span > opts.Duration {
			opts.Duration = span
		}
		maxLate := o.MaxLate
		opts.Pace = func() Pacer {
			return &OpenLoop{Profile: p, Arrivals: arr, MaxLate: maxLate}
		}
		opts.MaxInflight, opts.LatencyFrom = o.MaxInflight, o.LatencyFrom
	} else if o.LatencyFrom != "" || o.MaxLate > 0 || o.Step > 0 {
		return usage.Fieldf("{LatencyFrom}, {MaxLate} and {Step} need {Rate}")
	}
	mixed := false
	for _, w := range opts.Workloads {
		mixed = mixed || w == Mixed
	}
	if !mixed {
		return nil
	}
	var err error
	if opts.Mix.Ops, err = ParseMix(o.Mix); err != nil {
		return usage.Fieldf("{Mix}: %w", err)
	}
	o.shares = map[string]float64{}
	for _, w := range opts.Mix.Ops {
		o.shares[w.Value] = w.Weight / 100
	}
	if sizes == defaultSizes {
		sizes = DefaultMixSizes
	}
	if opts.Mix.Sizes, err = ParseSizeDist(sizes); err != nil {
		return usage.Fieldf("{Sizes}: %w", err)
	}
	if o.Keys <= 0 {
		return usage.Fieldf("{Keys} must be a positive count, got %d", o.Keys)
	}
	opts.Mix.Keys = o.Keys
	if opts.Mix.Dist, err = ParseKeyDist(o.KeyDist); err != nil {
		return usage.Fieldf("{KeyDist}: %w", err)
	}
	opts.MaxInflight = o.MaxInflight
	return nil
}

// AddTo adds the open-loop and mix settings to a run document's options.
func (o *OpenSettings) AddTo(m map[string]string) {
	m["interval"] = o.Interval.String()
	if o.Rate != "" {
		m["rate"], m["arrivals"], m["max_inflight"], m["max_late"] = o.Rate, o.Arrivals, fmt.Sprint(o.MaxInflight), o.MaxLate.String()
		m["latency_from"] = o.Origin()
		if o.Step > 0 {
			m["step"] = o.Step.String()
		}
	}
	if strings.Contains(m["workload"], Mixed) {
		m["mix"], m["keys"], m["key_dist"] = o.Mix, fmt.Sprint(o.Keys), o.KeyDist
	}
}

// Origin is where open-loop latency is measured from: intended unless
// --latency-from says actual.
func (o *OpenSettings) Origin() string {
	if o.LatencyFrom == "" {
		return FromIntended
	}
	return o.LatencyFrom
}

// Offered is how many operations the rate offered in a step's wall time:
// a mixed step's op gets its share of the mix. 0 in closed loop.
func (o *OpenSettings) Offered(res *StepResult) float64 {
	if o.Rate == "" {
		return 0
	}
	offered := o.profile.Expected(res.Wall)
	if share, ok := o.shares[res.Step.Op]; ok && res.Step.Workload == Mixed {
		offered *= share // this op's part of the mix
	}
	return offered
}

// RunSettings are run's workload flags as the user writes them; Options
// checks them.
type RunSettings struct {
	Workloads          string
	Objects            int
	ObjectSize         string
	Gets               int
	LatencyConcurrency int
	OpSizes            string
	OpCount            int
	Sizes              string
	SizeCount          int
	Levels             string
	LevelSize          string
	Requests           int
	Duration           time.Duration
	MaxAttempts        int
	// SweepPartSizes and SweepParallel are the ranges workload's grid
	// (empty: DefaultSweepPartSizes and DefaultSweepParallel).
	SweepPartSizes string
	SweepParallel  string
}

// Options checks the settings into workload options. Every error is a
// usage.Error naming the setting's field.
func (f RunSettings) Options() (Options, error) {
	o := Defaults()
	var err error
	if o.Workloads, err = ParseWorkloads(f.Workloads); err != nil {
		return o, usage.Fieldf("{Workloads}: %w", err)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"{Objects}", f.Objects}, {"{Gets}", f.Gets}, {"{LatencyConcurrency}", f.LatencyConcurrency},
		{"{OpCount}", f.OpCount}, {"{SizeCount}", f.SizeCount}, {"{MaxAttempts}", f.MaxAttempts}} {
		if c.v <= 0 {
			return o, usage.Fieldf(c.name+" must be a positive count, got %d", c.v)
		}
	}
	if f.Requests < 0 {
		return o, usage.Fieldf("{Requests} must be positive (or 0 for the defaults), got %d", f.Requests)
	}
	if f.Duration < 0 {
		return o, usage.Fieldf("{Duration} must not be negative")
	}
	o.PoolObjects, o.Gets, o.LatencyConcurrency, o.OpCount, o.SizeCount = f.Objects, f.Gets, f.LatencyConcurrency, f.OpCount, f.SizeCount
	o.Requests, o.Duration = f.Requests, f.Duration
	if o.PoolSize, err = units.ParseSize(f.ObjectSize); err != nil {
		return o, usage.Fieldf("{ObjectSize}: %w", err)
	}
	if o.OpSizes, err = units.ParseSizes(f.OpSizes); err != nil {
		return o, usage.Fieldf("{OpSizes}: %w", err)
	}
	weighted := slices.Contains(o.Workloads, Mixed) && strings.Contains(f.Sizes, ":") // a mix's size distribution
	if o.Sizes, err = units.ParseSizes(f.Sizes); err != nil && !weighted {
		return o, usage.Fieldf("{Sizes}: %w", err)
	}
	if o.Levels, err = units.ParseInts(f.Levels); err != nil {
		return o, usage.Fieldf("{Levels}: %w", err)
	}
	if o.LevelSize, err = units.ParseSize(f.LevelSize); err != nil {
		return o, usage.Fieldf("{LevelSize}: %w", err)
	}
	if err := f.sweepGrid(&o); err != nil {
		return o, err
	}
	return o, nil
}

// sweepGrid parses the ranges workload's grid; a grid given for another
// workload is a mistake the user should hear about.
func (f RunSettings) sweepGrid(o *Options) error {
	if f.SweepPartSizes == "" && f.SweepParallel == "" {
		return nil
	}
	if !slices.Contains(o.Workloads, Ranges) {
		return usage.Fieldf("{SweepPartSizes} and {SweepParallel} set the grid of --workload ranges, which this run does not include")
	}
	var err error
	if f.SweepPartSizes != "" {
		if o.RangePartSizes, err = units.ParseSizes(f.SweepPartSizes); err != nil {
			return usage.Fieldf("{SweepPartSizes}: %w", err)
		}
		for _, ps := range o.RangePartSizes {
			if ps < MinRangePart {
				return usage.Fieldf("{SweepPartSizes}: %s is below the smallest part, %s", units.FormatSize(ps), units.FormatSize(MinRangePart))
			}
		}
	}
	if f.SweepParallel != "" {
		if o.RangeParallel, err = units.ParseInts(f.SweepParallel); err != nil {
			return usage.Fieldf("{SweepParallel}: %w", err)
		}
		for _, p := range o.RangeParallel {
			if p <= 0 || p > MaxRangeParallel {
				return usage.Fieldf("{SweepParallel}: %d parts at a time: use 1 to %d", p, MaxRangeParallel)
			}
		}
	}
	return nil
}

// AsMap is the workload part of the run document's options block.
func (f RunSettings) AsMap() map[string]string {
	return map[string]string{
		"workload": f.Workloads, "objects": fmt.Sprint(f.Objects), "object_size": f.ObjectSize,
		"gets": fmt.Sprint(f.Gets), "op_sizes": f.OpSizes, "op_count": fmt.Sprint(f.OpCount),
		"sizes": f.Sizes, "size_count": fmt.Sprint(f.SizeCount), "concurrency": f.Levels,
		"concurrency_size": f.LevelSize, "requests": fmt.Sprint(f.Requests),
		"duration": f.Duration.String(), "max_attempts": fmt.Sprint(f.MaxAttempts),
	}
}
