package shard

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/load"

	"github.com/objbench/objbench/internal/usage"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		flags   Flags
		env     func(string) string
		want    Spec
		wantErr string
	}{
		{"unsharded", Flags{}, env(), Spec{}, ""},
		{"unsharded run id", Flags{RunID: "r1"}, env(), Spec{RunID: "r1"}, ""},
		{"flag", Flags{Shard: "2/4", RunID: "r1"}, env(), Spec{2, 4, "r1", EngineFlag}, ""},
		{"flag beats engine", Flags{Shard: "1/2", RunID: "r1"}, env(EnvK8sIndex, "3"), Spec{1, 2, "r1", EngineFlag}, ""},
		{"flag 5/4", Flags{Shard: "5/4", RunID: "r"}, env(), Spec{}, "index must be 0 to 3"},
		{"flag 0/0", Flags{Shard: "0/0", RunID: "r"}, env(), Spec{}, "count must be at least 1"},
		{"flag junk", Flags{Shard: "two", RunID: "r"}, env(), Spec{}, "use I/N"},
		{"flag without run id", Flags{Shard: "0/2"}, env(), Spec{}, "pass RunID ID"},
		{"flag and shards disagree", Flags{Shard: "0/2", Shards: 3, RunID: "r"}, env(), Spec{}, "disagree"},
		{"kubernetes", Flags{Shards: 4}, env(EnvK8sIndex, "3", EnvJobName, "bench-a"), Spec{3, 4, "bench-a", EngineKubernetes}, ""},
		{"kubernetes count from env", Flags{}, env(EnvK8sIndex, "0", EnvShards, "2", EnvRunID, "x"), Spec{0, 2, "x", EngineKubernetes}, ""},
		{"kubernetes without count", Flags{RunID: "r"}, env(EnvK8sIndex, "1"), Spec{}, "not the shard count"},
		{"kubernetes index too big", Flags{Shards: 2}, env(EnvK8sIndex, "2", EnvJobName, "j"), Spec{}, "out of range"},
		{"cloud run", Flags{}, env(EnvCloudRunIndex, "1", EnvCloudRunCount, "3", EnvCloudRunExec, "job-x7k2p"), Spec{1, 3, "job-x7k2p", EngineCloudRun}, ""},
		{"cloud run without count", Flags{}, env(EnvCloudRunIndex, "1", EnvCloudRunExec, "e"), Spec{}, EnvCloudRunCount},
		{"batch", Flags{}, env(EnvBatchIndex, "2", EnvBatchSize, "4", EnvBatchJobID, "a1b2-c3:2"), Spec{2, 4, "a1b2-c3", EngineBatch}, ""},
		{"batch size from --shards", Flags{Shards: 4}, env(EnvBatchIndex, "2", EnvBatchJobID, "a1b2-c3:2"), Spec{2, 4, "a1b2-c3", EngineBatch}, ""},
		{"batch without size", Flags{}, env(EnvBatchIndex, "2", EnvBatchJobID, "p:2"), Spec{}, "array size"},
		{"bad index", Flags{Shards: 2}, env(EnvK8sIndex, "-1"), Spec{}, "index of 0 or more"},
		{"shards alone", Flags{Shards: 3}, env(), Spec{}, "needs a shard index"},
		{"bad run id", Flags{Shard: "0/1", RunID: "a/b"}, env(), Spec{}, "letters, digits"},
		{"run id flag beats engine", Flags{RunID: "mine"}, env(EnvCloudRunIndex, "0", EnvCloudRunCount, "2", EnvCloudRunExec, "e"), Spec{0, 2, "mine", EngineCloudRun}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.flags, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", err)
				}
				// A setting is named by its field, for the command line to
				// print its flag; "--tasks" is Cloud Run's, not ours.
				if f := usage.FieldOf(err); f != "" && strings.Contains(strings.ReplaceAll(err.Error(), "--tasks", ""), "--") ||
					usage.Is(err) && f == "" {
					t.Fatalf("err %v (field %q): want a field and no flag", err, f)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestShareAddsUp(t *testing.T) {
	t.Parallel()
	for _, total := range []int{0, 1, 3, 4, 7, 100, 1001} {
		for _, n := range []int{1, 2, 3, 4, 7} {
			sum := 0
			for i := range n {
				s := Share(total, i, n)
				if s < total/n || s > total/n+1 {
					t.Fatalf("Share(%d, %d, %d) = %d: uneven", total, i, n, s)
				}
				sum += s
			}
			if sum != total {
				t.Fatalf("shares of %d over %d add up to %d", total, n, sum)
			}
		}
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	o := load.Defaults()
	o.Requests, o.Gets, o.LatencyConcurrency, o.Levels, o.MaxInflight = 10, 1000, 8, []int{1, 8, 10}, 64
	o.Pace = func() load.Pacer { return &load.OpenLoop{Profile: load.RateProfile{Rates: []float64{400, 800}}} }
	var sumReq, sumInflight int
	var sumRate float64
	for i := range 4 {
		c := o
		Spec{Index: i, Count: 4, RunID: "r"}.Apply(&c)
		sumReq += c.Requests
		sumInflight += c.MaxInflight
		p := c.Pace().(*load.OpenLoop)
		sumRate += p.Profile.Rates[0]
		if p.Profile.Rates[1] != 200 {
			t.Fatalf("shard %d ramp end %v, want 200", i, p.Profile.Rates[1])
		}
		if c.Levels[0] != 1 || c.Levels[1] != 2 {
			t.Fatalf("shard %d levels %v, want [1 2 2|3]", i, c.Levels)
		}
	}
	if sumReq != 10 || sumInflight != 64 || sumRate != 400 {
		t.Fatalf("shares add up to requests %d, inflight %d, rate %v; want 10, 64, 400", sumReq, sumInflight, sumRate)
	}
	if o.Pace().(*load.OpenLoop).Profile.Rates[0] != 400 {
		t.Fatal("Apply changed the caller's pacer")
	}
}

func TestPrefixesDisjoint(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for i := range 12 {
		p := Spec{Index: i, Count: 12, RunID: "r"}.Prefix("") + "/"
		for q := range seen {
			if strings.HasPrefix(p, q) || strings.HasPrefix(q, p) {
				t.Fatalf("prefixes %s and %s overlap", p, q)
			}
		}
		seen[p] = true
	}
	if got := (Spec{Index: 1, Count: 2, RunID: "r"}).Prefix("/mine/"); got != "mine/shard-1" {
		t.Fatalf("Prefix with --prefix: %q", got)
	}
}

// TestTake: a shard takes its share of a run's totals (the options, the
// open loop's offered rate) and a key space of its own; a process that
// runs alone keeps them, and so does its document's id come new.
func TestTake(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		spec    Spec
		gets    int     // o.Gets after
		offered float64 // per second, after
		prefix  string
		id      string
	}{
		{name: "alone", spec: Spec{}, gets: 1000, offered: 400, prefix: "mine", id: "new"},
		{name: "shard 1 of 4", spec: Spec{Index: 1, Count: 4, RunID: "r"}, gets: 250, offered: 100, prefix: "mine/shard-1", id: "r-shard-1"},
		{name: "one shard", spec: Spec{Index: 0, Count: 1, RunID: "r"}, gets: 1000, offered: 400, prefix: "mine/shard-0", id: "r-shard-0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := load.Defaults()
			o.Gets = 1000
			open := load.OpenSettings{Rate: "400", Arrivals: string(load.Uniform), MaxInflight: 64, Interval: time.Second,
				Mix: "get=100", Keys: 10, KeyDist: "uniform"}
			if err := open.Apply(&o, "1KiB", "1KiB"); err != nil {
				t.Fatal(err)
			}
			prefix := "mine"
			c.spec.Take(&o, &open, &prefix)
			offered := open.Offered(&load.StepResult{Wall: time.Second, Step: &load.Step{}})
			if o.Gets != c.gets || offered != c.offered || prefix != c.prefix {
				t.Errorf("gets %d, offered %v/s, prefix %q; want %d, %v, %q", o.Gets, offered, prefix, c.gets, c.offered, c.prefix)
			}
			if id := c.spec.LocalIDOr(func() string { return "new" }); id != c.id {
				t.Errorf("LocalIDOr = %q, want %q", id, c.id)
			}
		})
	}
}
