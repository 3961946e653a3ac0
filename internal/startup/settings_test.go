package startup

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSettingsOptions(t *testing.T) {
	t.Parallel()
	base := Settings{Runtime: DefaultRuntime(), Scenarios: "require,cpu", Modules: 10, Props: 5, Runs: 3, CPUTime: time.Second, Timeout: time.Minute, Seed: 7}
	o, err := base.Options()
	if err != nil {
		t.Skipf("no runtime here: %v", err)
	}
	if !slices.Equal(o.Scenarios, []string{"require", "cpu"}) || o.Modules != 10 || o.Runs != 3 || o.Seed != 7 || o.Runtime != base.Runtime {
		t.Errorf("options %+v", o)
	}
	for _, c := range []struct {
		edit func(*Settings)
		err  string
	}{
		{func(s *Settings) { s.Modules = 0 }, "modules"},
		{func(s *Settings) { s.Runs = 0 }, "runs"},
		{func(s *Settings) { s.Props = -1 }, "props"},
		{func(s *Settings) { s.Runtime = "cobol" }, "cobol"},
	} {
		s := base
		c.edit(&s)
		if _, err := s.Options(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("error %v, want one naming %q", err, c.err)
		}
	}
	m := base.AsMap()
	if m["scenario"] != "require,cpu" || m["cpu_time"] != "1s" || m["seed"] != "7" || m["modules"] != "10" || len(m) != 7 {
		t.Errorf("options block %v", m)
	}
}
