package startup

import (
	"os/exec"
	"strings"

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

// Document is the startup document of what Run measured, in env.
func (r *Result) Document(env document.Envelope, envLabel string) *document.StartupDocument {
	env.Target = document.TargetInfo{URL: "startup:" + r.Runtime, Provider: r.Runtime}
	d := &document.StartupDocument{Envelope: env, Runtime: r.Runtime, RuntimeVersion: r.RuntimeVersion, EnvLabel: envLabel}
	for _, s := range r.Scenarios {
		d.Scenarios = append(d.Scenarios, document.StartupScenarioFrom(s.Scenario, s.Runs, s.Timeouts, s.Failures, s.Wall, s.Load, s.FirstError))
	}
	return d
}
