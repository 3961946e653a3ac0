package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/load"
)

// openFlags are the flags of open-loop (--rate) and mixed runs.
type openFlags struct{ load.OpenSettings }

func (o *openFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.Rate, "rate", "", "open loop: operations per second across all workers (500), a linear ramp (100:2000:60s) or steps (100,500,1000 with --step); latency is then measured from each operation's intended start")
	fl.StringVar(&o.Arrivals, "arrivals", string(load.Uniform), "open loop: uniform (evenly spaced) or poisson (exponential gaps) arrivals")
	fl.DurationVar(&o.Step, "step", 0, "open loop: time at each rate of a --rate list")
	fl.IntVar(&o.MaxInflight, "max-inflight", 64, "open loop and mixed: operations in flight at most (the workers); an arrival with none free starts late")
	fl.DurationVar(&o.MaxLate, "max-late", 0, "open loop: drop (and count) an operation that could only start later than this after its time (0: never drop)")
	fl.StringVar(&o.LatencyFrom, "latency-from", "", "open loop: measure latency from the 'intended' start (default, free of coordinated omission) or the 'actual' send; the other is reported beside it")
	fl.StringVar(&o.Mix, "mix", "get=70,put=20,list=5,head=3,delete=2", "mixed: operations in percent, adding up to 100 (get, put, list, head, delete)")
	fl.IntVar(&o.Keys, "keys", 100, "mixed: objects in the working set, written before the measured step")
	fl.StringVar(&o.KeyDist, "key-dist", "uniform", "mixed: key popularity: uniform or zipf:S (S > 1, e.g. zipf:1.1)")
	fl.DurationVar(&o.Interval, "interval", time.Second, "length of each interval of the results over time (at least 10ms)")
	nameFields(fl, &o.OpenSettings)
}
