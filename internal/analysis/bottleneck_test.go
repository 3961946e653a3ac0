package analysis

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
)

// TestCPUSentence: the process's CPU over the step's wall time, against
// the cores its workers could keep busy, names who limited the step.
func TestCPUSentence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		lab        bool
		cpus, conc int
		cpuUs      float64 // per op, of 1000 ops in 1 s
		want       string
	}{
		{"one worker, CPU-bound", false, 4, 1, 960, "the client used 96% of a core (0.96 cores of CPU, waits for a CPU included): this client's CPU is the limit"},
		{"one worker, waiting on the service", false, 4, 1, 300, "the client was 30% busy (0.30 of a core): the server or the path is the limit, not this client"},
		{"eight workers on two cores", false, 2, 8, 1900, "the client used 95% of the 2 cores its workers could use"},
		{"the lab in the process", true, 2, 2, 500, "objbench's process (the client and the lab's servers, which run in it) was 25% busy (0.50 of the 2 cores its workers could use): the emulated path"},
	}
	for _, c := range cases {
		d := labDoc(document.Result{Op: "get", Concurrency: c.conc, Count: 1000, WallS: 1, ClientCPUusPerOp: c.cpuUs})
		d.Client.CPUs = c.cpus
		if !c.lab {
			d.Lab = nil
		}
		u, ok := cpuUseOf(d, d.Results)
		if !ok || !strings.Contains(u.sentence(), c.want) {
			t.Errorf("%s: %q, want %q", c.name, u.sentence(), c.want)
		}
	}
}

// TestBottleneckSaturatingEachSide runs steps of 1, 2P and 4P workers (P
// the cores Go schedules on)
// against a client that saturates its CPU (each operation hashes 256 KiB:
// CPU work, no wait) and against a server that saturates (one operation
// at a time, each 2 ms of sleep: no CPU). Both stop scaling; the finding
// must name the client in the first and clear it in the second. The CPU
// counted includes the time the process waited for a CPU held by other
// work, so a machine loaded by other processes does not turn a CPU-bound
// client into an idle one. Not parallel: the process's CPU is measured.
func TestBottleneckSaturatingEachSide(t *testing.T) {
	var mu sync.Mutex
	buf := make([]byte, 256<<10)
	sides := []struct {
		name string
		do   load.DoFunc
		want string
	}{
		{"client saturated", func(ctx context.Context, _ storage.Backend, _ string) error {
			for range 8 {
				sha256.Sum256(buf)
			}
			return ctx.Err()
		}, "this client's CPU is the limit"},
		{"server saturated", func(ctx context.Context, _ storage.Backend, _ string) error {
			mu.Lock()
			defer mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			return ctx.Err()
		}, "the server or the path is the limit, not this client"},
	}
	for _, side := range sides {
		r := &load.Runner{NewClient: func(context.Context) (*load.Client, error) {
			return &load.Client{Backend: mem.New("bottleneck", true)}, nil
		}}
		d := &document.Document{Envelope: document.NewEnvelope("run", "t", time.Now())}
		d.Client.CPUs = runtime.GOMAXPROCS(0) // the cores Go schedules on
		p := runtime.GOMAXPROCS(0)
		for _, c := range []int{1, 2 * p, 4 * p} { // past the cores from the second step on
			// Bounded: 250 operations, at most 10 s.
			st := &load.Step{Workload: "concurrency", Op: "get", Size: 1 << 20, Concurrency: c, Requests: 250,
				Duration: 10 * time.Second, Key: func(i int) string { return fmt.Sprint(i) }, Do: side.do}
			res, err := r.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			d.Results = append(d.Results, StepResult(res, "pooled", &load.OpenSettings{}))
		}
		fs := concurrencyRule(&Facts{Doc: d})
		if len(fs) != 1 {
			var rates []string
			for _, r := range d.Results {
				rates = append(rates, fmt.Sprintf("c=%d %.0f MB/s", r.Concurrency, r.AggregateMBps))
			}
			t.Fatalf("%s: findings %v (throughput %v): want one plateau", side.name, fs, rates)
		}
		t.Logf("%s: %s", side.name, fs[0].Text)
		if !strings.Contains(fs[0].Text, side.want) {
			t.Errorf("%s: %q\nwant %q", side.name, fs[0].Text, side.want)
		}
	}
}
