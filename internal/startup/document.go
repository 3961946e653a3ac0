package startup

import (
	"maps"
	"os/exec"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
)

// DefaultRuntime is node when it is on PATH, else python.
func DefaultRuntime() string {
	if _, err := exec.LookPath("node"); err == nil {
		return "node"
	}
	return "python"
}

// SplitScenarios splits a comma-separated list of scenarios, dropping blanks.
func SplitScenarios(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Meta is what a startup document records besides the measurements: the
// run's id and start, the settings as given (the options block), the
// labels, the environment's name (--env-label, also the label env), and
// whether the run was interrupted.
type Meta struct {
	RunID       string
	Started     time.Time
	Settings    Settings
	Labels      map[string]string
	EnvLabel    string
	Interrupted bool
}

// Document is the startup document of what Run measured: its envelope
// from m, lasting until now, then the scenarios.
func (r *Result) Document(m Meta) *document.StartupDocument {
	env := document.NewEnvelope("startup", m.RunID, m.Started)
	env.DurationS, env.Labels, env.Interrupted = time.Since(m.Started).Seconds(), m.Labels, m.Interrupted
	if m.EnvLabel != "" {
		env.Labels = maps.Clone(m.Labels)
		if env.Labels == nil {
			env.Labels = map[string]string{}
		}
		env.Labels["env"] = m.EnvLabel
	}
	env.Options = m.Settings.AsMap()
	env.Target = document.TargetInfo{URL: "startup:" + r.Runtime, Provider: r.Runtime}
	d := &document.StartupDocument{Envelope: env, Runtime: r.Runtime, RuntimeVersion: r.RuntimeVersion, EnvLabel: m.EnvLabel}
	for _, s := range r.Scenarios {
		d.Scenarios = append(d.Scenarios, document.StartupScenarioFrom(s.Scenario, s.Runs, s.Timeouts, s.Failures, s.Wall, s.Load, s.FirstError))
	}
	return d
}
