package startup

import (
	"fmt"
	"time"
)

// Settings are startup's flags as the user writes them; Options checks
// them.
type Settings struct {
	Runtime, Scenarios   string
	Modules, Props, Runs int
	CPUTime, Timeout     time.Duration
	Seed                 int64
}

// Options checks the settings into run options: the runtime defaults to
// node when on PATH, else python (see Validate).
func (s Settings) Options() (Options, error) {
	rt := s.Runtime
	if rt == "" {
		rt = DefaultRuntime()
	}
	o := Options{Runtime: rt, Modules: s.Modules, Props: s.Props, Runs: s.Runs, Scenarios: SplitScenarios(s.Scenarios),
		CPUTime: s.CPUTime, Timeout: s.Timeout, Seed: s.Seed}
	return o, Validate(o)
}

// AsMap is the options block of the startup document: the settings as
// given.
func (s Settings) AsMap() map[string]string {
	return map[string]string{"modules": fmt.Sprint(s.Modules), "props": fmt.Sprint(s.Props), "runs": fmt.Sprint(s.Runs),
		"scenario": s.Scenarios, "cpu_time": s.CPUTime.String(), "timeout": s.Timeout.String(), "seed": fmt.Sprint(s.Seed)}
}
