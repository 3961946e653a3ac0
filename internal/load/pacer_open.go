package load

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/usage"
)

// Arrivals are how an open-loop pacer spaces operations.
type Arrivals string

// Arrival processes.
const (
	// Uniform spaces operations evenly: 1/R apart.
	Uniform Arrivals = "uniform"
	// Poisson draws exponential gaps of mean 1/R, as independent users do.
	Poisson Arrivals = "poisson"
)

// RateProfile is the offered rate over time: constant, a linear ramp, or
// steps. Rates are in operations per second across all workers.
type RateProfile struct {
	// Rates: one rate (constant), two (a linear ramp from the first to the
	// second over Ramp, its rows Step long when set), or several (steps of
	// Step each).
	Rates []float64
	Ramp  time.Duration
	Step  time.Duration
}

// ParseRate reads --rate: "500", "100:2000:60s" (linear ramp, reported in
// rows of step, or of a tenth of the ramp without one) or "100,500,1000"
// (steps of step each; step must then be positive).
func ParseRate(s string, step time.Duration) (RateProfile, error) {
	s = strings.TrimSpace(s)
	num := func(v string) (float64, error) {
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(r > 0) || math.IsInf(r, 0) {
			return 0, fmt.Errorf("rate %q must be a positive number of operations per second", v)
		}
		return r, nil
	}
	switch {
	case strings.Contains(s, ":"):
		parts := strings.Split(s, ":")
		if len(parts) != 3 {
			return RateProfile{}, fmt.Errorf("ramp %q: use START:END:DURATION, e.g. 100:2000:60s", s)
		}
		a, err := num(parts[0])
		if err != nil {
			return RateProfile{}, err
		}
		b, err := num(parts[1])
		if err != nil {
			return RateProfile{}, err
		}
		d, err := time.ParseDuration(strings.TrimSpace(parts[2]))
		if err != nil || d <= 0 {
			return RateProfile{}, fmt.Errorf("ramp %q: the duration must be positive, e.g. 60s", s)
		}
		if b < a {
			return RateProfile{}, fmt.Errorf("ramp %q ends below its start: use START:END with END >= START", s)
		}
		// step, when given, is the length of the ramp's rows (RateStep).
		return RateProfile{Rates: []float64{a, b}, Ramp: d, Step: max(step, 0)}, nil
	case strings.Contains(s, ","):
		var p RateProfile
		for _, v := range strings.Split(s, ",") {
			r, err := num(v)
			if err != nil {
				return RateProfile{}, err
			}
			p.Rates = append(p.Rates, r)
		}
		if step <= 0 {
			return RateProfile{}, usage.Namedf("steps %q need {Step}, the time at each rate, e.g. {Step} 30s", s)
		}
		p.Step = step
		return p, nil
	default:
		r, err := num(s)
		if err != nil {
			return RateProfile{}, err
		}
		return RateProfile{Rates: []float64{r}}, nil
	}
}

// String prints the profile as ParseRate reads it.
func (p RateProfile) String() string {
	f := func(r float64) string { return strconv.FormatFloat(r, 'g', -1, 64) }
	switch {
	case p.Ramp > 0 && len(p.Rates) == 2:
		return f(p.Rates[0]) + ":" + f(p.Rates[1]) + ":" + p.Ramp.String()
	default:
		parts := make([]string, len(p.Rates))
		for i, r := range p.Rates {
			parts[i] = f(r)
		}
		return strings.Join(parts, ",")
	}
}

// Span is how long the profile changes: the ramp's duration, or all its
// steps (0 for a constant rate).
func (p RateProfile) Span() time.Duration {
	switch {
	case p.Ramp > 0:
		return p.Ramp
	case p.Step > 0:
		return time.Duration(len(p.Rates)) * p.Step
	}
	return 0
}

// RateAt is the offered rate t after the start.
func (p RateProfile) RateAt(t time.Duration) float64 {
	switch {
	case len(p.Rates) == 0:
		return 0
	case p.Ramp > 0 && len(p.Rates) == 2:
		if t >= p.Ramp {
			return p.Rates[1]
		}
		return p.Rates[0] + (p.Rates[1]-p.Rates[0])*t.Seconds()/p.Ramp.Seconds()
	case p.Step > 0:
		k := min(int(t/p.Step), len(p.Rates)-1)
		return p.Rates[k]
	default:
		return p.Rates[0]
	}
}

// Expected is how many operations the profile offers in d: the integral of
// the rate.
func (p RateProfile) Expected(d time.Duration) float64 {
	s := d.Seconds()
	switch {
	case len(p.Rates) == 0:
		return 0
	case p.Ramp > 0 && len(p.Rates) == 2:
		a, b, T := p.Rates[0], p.Rates[1], p.Ramp.Seconds()
		if s <= T {
			return a*s + (b-a)*s*s/(2*T)
		}
		return (a+b)*T/2 + b*(s-T)
	case p.Step > 0:
		n, st := 0.0, p.Step.Seconds()
		for k, r := range p.Rates {
			if k == len(p.Rates)-1 || s <= float64(k+1)*st {
				return n + r*(s-float64(k)*st)
			}
			n += r * st
		}
		return n
	default:
		return p.Rates[0] * s
	}
}

// at inverts Expected: the time at which the u-th operation (u counted
// from 0, fractional for Poisson arrivals) is due.
func (p RateProfile) at(u float64) time.Duration {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	switch {
	case p.Ramp > 0 && len(p.Rates) == 2:
		a, b, T := p.Rates[0], p.Rates[1], p.Ramp.Seconds()
		if full := (a + b) * T / 2; u >= full {
			return sec(T + (u-full)/b)
		}
		if b == a {
			return sec(u / a)
		}
		k := (b - a) / (2 * T) // k s^2 + a s - u = 0
		return sec((-a + math.Sqrt(a*a+4*k*u)) / (2 * k))
	case p.Step > 0:
		n, st := 0.0, p.Step.Seconds()
		for k, r := range p.Rates {
			if k == len(p.Rates)-1 || u < n+r*st {
				return sec(float64(k)*st + (u-n)/r)
			}
			n += r * st
		}
	}
	return sec(u / p.Rates[0])
}

// OpenLoop paces a step at a planned rate, whatever the service does: the
// i-th operation is due at a time of its own, and latency is measured
// from that time (wrk2's correction for coordinated omission). A worker
// that gets to an operation after its time starts it at once (late); past
// MaxLate it drops it instead, counted, never silently.
type OpenLoop struct {
	Profile  RateProfile
	Arrivals Arrivals
	// MaxLate, when positive, drops an operation that could only start
	// more than MaxLate after its intended time.
	MaxLate time.Duration
	// Tolerance is how far behind its time an operation may start before
	// it counts as late: the timer's own error (1 ms when zero).
	Tolerance time.Duration
	// Seed seeds the Poisson gaps (0: random).
	Seed uint64

	once  sync.Once
	start time.Time
	mu    sync.Mutex
	rng   *rand.Rand
	u     float64 // Poisson: the arrival count of the last operation handed out
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// ErrDropped is returned by OpenLoop.Wait for an operation dropped for
// being later than MaxLate; the runner counts it and goes on.
var ErrDropped = fmt.Errorf("dropped: later than --max-late")

// Start fixes the schedule's time zero (at the first Wait otherwise).
func (o *OpenLoop) Start(t time.Time) {
	o.once.Do(func() { o.init(t) })
}

func (o *OpenLoop) init(t time.Time) {
	o.start = t
	seed := o.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	o.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	if o.now == nil {
		o.now = time.Now
	}
	if o.sleep == nil {
		o.sleep = sleepCtx
	}
}

// Intended is the planned start of operation i.
func (o *OpenLoop) Intended(i int) time.Time {
	o.Start(time.Now())
	u := float64(i)
	if o.Arrivals == Poisson {
		o.mu.Lock()
		o.u += o.rng.ExpFloat64()
		u = o.u - 1 // the first arrival is at about time zero
		o.mu.Unlock()
		u = max(u, 0)
	}
	return o.start.Add(o.Profile.at(u))
}

// Wait sleeps until operation i is due and returns its intended start. It
// returns ErrDropped when the operation is due more than MaxLate ago.
func (o *OpenLoop) Wait(ctx context.Context, i int) (time.Time, error) {
	t := o.Intended(i)
	d := t.Sub(o.now())
	if d > 0 {
		if err := o.sleep(ctx, d); err != nil {
			return t, err
		}
		return t, nil
	}
	if o.MaxLate > 0 && -d > o.MaxLate {
		return t, ErrDropped
	}
	return t, ctx.Err()
}

// LateAfter is the lateness from which an operation counts as late.
func (o *OpenLoop) LateAfter() time.Duration {
	if o.Tolerance > 0 {
		return o.Tolerance
	}
	return time.Millisecond
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
