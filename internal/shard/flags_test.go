package shard

import (
	"errors"
	"testing"
	"time"
)

func TestFlagsPlace(t *testing.T) {
	env := func(string) string { return "" }
	tests := []struct {
		name              string
		f                 Flags
		pool              bool
		wantPrefix        string
		wantObjects, want int
		err               error
	}{
		{"unsharded keeps counts and prefix", Flags{}, false, "p", 10, 3, nil},
		{"shard 1 of 4 takes its share", Flags{Shard: "1/4", RunID: "r1"}, false, "p/shard-1", 3, 1, nil},
		{"a pool of its own", Flags{Shard: "0/2", RunID: "r1"}, true, "", 5, 2, nil},
		{"results-to is run's", Flags{Shard: "0/2", ResultsTo: "/tmp/x"}, false, "p", 10, 3, ErrRunOnly},
		{"start-in is run's", Flags{StartIn: time.Second}, false, "p", 10, 3, ErrRunOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix, objects, par := "p", 10, 3
			_, err := tt.f.Place(env, &prefix, tt.pool, &objects, &par)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if objects != tt.wantObjects || par != tt.want {
				t.Errorf("counts %d %d, want %d %d", objects, par, tt.wantObjects, tt.want)
			}
			if tt.wantPrefix != "" && prefix != tt.wantPrefix {
				t.Errorf("prefix %q, want %q", prefix, tt.wantPrefix)
			}
			if tt.pool && prefix == "p" {
				t.Errorf("pool prefix unchanged: %q", prefix)
			}
		})
	}
}

func TestResolveRunAndAddTo(t *testing.T) {
	env := func(string) string { return "" }
	s, err := ResolveRun(Flags{}, env, func() string { return "new-id" })
	if err != nil || s.RunID != "new-id" || s.Active() {
		t.Errorf("unsharded: %+v %v", s, err)
	}
	s, err = ResolveRun(Flags{Shard: "2/4", RunID: "shared"}, env, func() string { return "new-id" })
	if err != nil || s.RunID != "shared" || s.Index != 2 || s.Count != 4 {
		t.Errorf("sharded: %+v %v", s, err)
	}
	m := map[string]string{}
	Flags{ResultsTo: "s3://b/r"}.AddTo(m, s)
	if m["shard"] != "2/4" || m["results_to"] != "s3://b/r" {
		t.Errorf("options %v", m)
	}
	m = map[string]string{}
	Flags{}.AddTo(m, Spec{})
	if len(m) != 0 {
		t.Errorf("unsharded options %v", m)
	}
}
