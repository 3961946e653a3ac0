package startup

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
)

func TestSplitScenariosAndDocument(t *testing.T) {
	t.Parallel()
	if got := SplitScenarios(" require, ,cpu,"); !slices.Equal(got, []string{"require", "cpu"}) {
		t.Errorf("SplitScenarios = %q", got)
	}
	r := &Result{Runtime: "node", RuntimeVersion: "v22", Scenarios: []ScenarioResult{
		{Scenario: "cpu", Runs: 2, Wall: []time.Duration{time.Millisecond, 3 * time.Millisecond}, Load: []time.Duration{time.Millisecond, time.Millisecond}}}}
	labels := map[string]string{"team": "a"}
	s := Settings{Scenarios: "cpu", Modules: 10, Props: 2, Runs: 2, CPUTime: time.Millisecond, Timeout: time.Second, Seed: 1}
	started := time.Now().Add(-time.Second)
	d := r.Document(Meta{RunID: "id", Started: started, Settings: s, Labels: labels, EnvLabel: "laptop", Interrupted: true})
	if d.Target.URL != "startup:node" || d.Runtime != "node" || d.EnvLabel != "laptop" || len(d.Scenarios) != 1 ||
		d.Scenarios[0].Scenario != "cpu" || d.Scenarios[0].WallMs.Max != 3 {
		t.Errorf("document %+v", d)
	}
	env := d.Envelope
	if env.Schema != document.Schema || env.Command != "startup" || env.RunID != "id" || !env.Started().Equal(started) ||
		env.DurationS < 1 || !env.Interrupted || !maps.Equal(env.Options, s.AsMap()) {
		t.Errorf("envelope %+v", env)
	}
	if !maps.Equal(env.Labels, map[string]string{"team": "a", "env": "laptop"}) || len(labels) != 1 {
		t.Errorf("labels %v (the caller's %v are left as they were)", env.Labels, labels)
	}
	if d := r.Document(Meta{RunID: "id", Started: started}); d.Labels != nil || d.Interrupted {
		t.Errorf("no labels, no env label: labels %v, interrupted %v", d.Labels, d.Interrupted)
	}
}
