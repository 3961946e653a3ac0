package load

import (
	"errors"
	"fmt"
	"strings"
	"time"
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

// DefaultMixSizes is the object size of a mix when --sizes keeps the
// throughput workload's default.
const DefaultMixSizes = "4KiB"

// Apply checks the settings and sets the open-loop and mix options; sizes
// is --sizes (a mix's size distribution, unless it is defaultSizes). Every
// error is the user's to fix, and names the setting by its flag.
func (o *OpenSettings) Apply(opts *Options, sizes string, defaultSizes string) error {
	if o.Interval < 10*time.Millisecond {
		return fmt.Errorf("--interval must be at least 10ms, got %s", o.Interval)
	}
	if o.MaxInflight <= 0 {
		return fmt.Errorf("--max-inflight must be a positive count, got %d", o.MaxInflight)
	}
	if o.MaxLate < 0 {
		return errors.New("--max-late must not be negative")
	}
	arr := Arrivals(strings.ToLower(o.Arrivals))
	if arr != Uniform && arr != Poisson {
		return fmt.Errorf("--arrivals: unknown %q: use uniform or poisson", o.Arrivals)
	}
	switch o.LatencyFrom {
	case "", FromIntended, FromActual:
	default:
		return fmt.Errorf("--latency-from: unknown %q: use intended or actual", o.LatencyFrom)
	}
	if o.Rate != "" {
		p, err := ParseRate(o.Rate, o.Step)
		if err != nil {
			return fmt.Errorf("--rate: %w", err)
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
		return errors.New("--latency-from, --max-late and --step need --rate")
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
		return fmt.Errorf("--mix: %w", err)
	}
	o.shares = map[string]float64{}
	for _, w := range opts.Mix.Ops {
		o.shares[w.Value] = w.Weight / 100
	}
	if sizes == defaultSizes {
		sizes = DefaultMixSizes
	}
	if opts.Mix.Sizes, err = ParseSizeDist(sizes); err != nil {
		return fmt.Errorf("--sizes: %w", err)
	}
	if o.Keys <= 0 {
		return fmt.Errorf("--keys must be a positive count, got %d", o.Keys)
	}
	opts.Mix.Keys = o.Keys
	if opts.Mix.Dist, err = ParseKeyDist(o.KeyDist); err != nil {
		return fmt.Errorf("--key-dist: %w", err)
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
