package startup

import (
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
	d := r.Document(document.NewEnvelope("startup", "id", time.Now()), "laptop")
	if d.Target.URL != "startup:node" || d.Runtime != "node" || d.EnvLabel != "laptop" || len(d.Scenarios) != 1 ||
		d.Scenarios[0].Scenario != "cpu" || d.Scenarios[0].WallMs.Max != 3 {
		t.Errorf("document %+v", d)
	}
}
