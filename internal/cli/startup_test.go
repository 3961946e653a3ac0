package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needRuntime(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not on PATH on CI", name)
		}
		t.Skipf("%s not on PATH", name)
	}
}

// TestStartupTwoEnvironments: two startup runs with different --env-label
// values are saved, compared and reported side by side.
func TestStartupTwoEnvironments(t *testing.T) {
	needRuntime(t, "node")
	needRuntime(t, "python3")
	t.Parallel()
	db := filepath.Join(t.TempDir(), "results.db")
	ctx := context.Background()
	var ids []string
	for _, env := range []struct{ runtime, label string }{{"node", "env-a"}, {"python", "env-b"}} {
		code, out, errOut := runCLI(t, ctx, "startup", "--runtime", env.runtime, "--runs", "12", "--modules", "30", "--props", "5",
			"--cpu-time", "50ms", "--env-label", env.label, "--json", "-q", "--db", db)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", env.runtime, code, errOut)
		}
		var d struct {
			RunID     string `json:"run_id"`
			Runtime   string `json:"runtime"`
			Scenarios []struct {
				Scenario string `json:"scenario"`
				Runs     int    `json:"runs"`
				Timeouts int    `json:"timeouts"`
				WallMs   struct {
					Median, Min, Max float64
				} `json:"wall_ms"`
				WallMsTrimmed struct{ Median float64 } `json:"wall_ms_trimmed"`
				LoadMs        struct{ Median float64 } `json:"load_ms"`
			} `json:"scenarios"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		if d.Runtime != env.runtime || len(d.Scenarios) != 3 {
			t.Fatalf("runtime %q, %d scenarios", d.Runtime, len(d.Scenarios))
		}
		for _, s := range d.Scenarios {
			if s.Runs != 12 || s.Timeouts != 0 || s.WallMs.Median <= 0 || s.LoadMs.Median > s.WallMs.Median || s.WallMs.Min > s.WallMs.Median {
				t.Errorf("%s %s: %+v", env.runtime, s.Scenario, s)
			}
			if s.Scenario == "cpu" && s.WallMs.Median < 50 {
				t.Errorf("cpu scenario took %v ms, under its 50 ms of spinning", s.WallMs.Median)
			}
		}
		ids = append(ids, d.RunID)
	}
	code, out, errOut := runCLI(t, ctx, "compare", ids[0], ids[1], "--db", db)
	if code != 0 || !strings.Contains(out, "startup require wall") || !strings.Contains(out, "env=env-a") {
		t.Errorf("compare: exit %d %s\n%s", code, errOut, out)
	}
	page := filepath.Join(t.TempDir(), "startup.html")
	code, _, errOut = runCLI(t, ctx, "report", ids[0], ids[1], "-o", page, "--db", db)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	checkReportPage(t, page, []string{"env=env-a", "env=env-b", "node", "python"},
		[]string{"Start-up wall time, require", "Start-up wall time, regenerate", "Start-up wall time, cpu"})
}
