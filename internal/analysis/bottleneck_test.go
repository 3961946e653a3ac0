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
		waitUs     float64 // waits for a CPU per op
		want       string
	}{
		{"one worker, CPU-bound", false, 4, 1, 960, 0, "the client used 96% of a core (0.96 cores of CPU): this client's CPU is the limit"},
		{"one worker, starved of CPU by other work", false, 4, 1, 500, 450,
			"the client wanted 95% of a core (0.50 cores of CPU used, 0.45 more waited for while other work held them): this client's CPU is the limit"},
		{"one worker, waiting on the service", false, 4, 1, 300, 0, "the client was 30% busy (0.30 of a core): the server or the path is the limit, not this client"},
		{"eight workers on two cores", false, 2, 8, 1900, 0, "the client used 95% of the 2 cores its workers could use"},
		{"the lab in the process", true, 2, 2, 500, 0, "objbench's process (the client and the lab's servers, which run in it) was 25% busy (0.50 of the 2 cores its workers could use): the emulated path"},
	}
	for _, c := range cases {
		d := labDoc(document.Result{Op: "get", Concurrency: c.conc, Count: 1000, WallS: 1, ClientCPUusPerOp: c.cpuUs, ClientRunWaitUsPerOp: c.waitUs})
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

// TestBottleneckSaturatingEachSide runs a step of 4P workers (P the cores
// Go schedules on) against a client that saturates its CPU (each
// operation hashes 2 MiB: CPU work, no wait) and against a server that
// saturates (one operation at a time, each 10 ms of sleep: no CPU). The
// step's CPU must name the client in the first and clear it in the
// second. The CPU counted includes the time the process waited for a CPU
// held by other work, so a machine loaded by other processes does not
// turn a CPU-bound client into an idle one. Not parallel: the process's
// CPU is measured.
func TestBottleneckSaturatingEachSide(t *testing.T) {
	var mu sync.Mutex
	buf := make([]byte, 256<<10)
	sides := []struct {
		name  string
		ops   int
		do    load.DoFunc
		bound bool
		want  string
	}{
		{"client saturated", 250, func(ctx context.Context, _ storage.Backend, _ string) error {
			for range 8 {
				sha256.Sum256(buf)
			}
			return ctx.Err()
		}, true, "this client's CPU is the limit"},
		// 10 ms a request, not less: each wake-up of a worker on a loaded
		// machine waits for a CPU too, and at thousands a second those
		// waits would add up to cores.
		{"server saturated", 80, func(ctx context.Context, _ storage.Backend, _ string) error {
			mu.Lock()
			defer mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			return ctx.Err()
		}, false, "the server or the path is the limit, not this client"},
	}
	for _, side := range sides {
		r := &load.Runner{NewClient: func(context.Context) (*load.Client, error) {
			return &load.Client{Backend: mem.New("bottleneck", true)}, nil
		}}
		d := &document.Document{Envelope: document.NewEnvelope("run", "t", time.Now())}
		d.Client.CPUs = runtime.GOMAXPROCS(0) // the cores Go schedules on
		// Bounded: 250 or 80 operations, at most 10 s.
		st := &load.Step{Workload: "concurrency", Op: "get", Size: 1 << 20, Concurrency: 4 * d.Client.CPUs, Requests: side.ops,
			Duration: 10 * time.Second, Key: func(i int) string { return fmt.Sprint(i) }, Do: side.do}
		res, err := r.Run(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		d.Results = append(d.Results, StepResult(res, "pooled", &load.OpenSettings{}))
		u, ok := cpuUseOf(d, d.Results)
		if !ok {
			t.Fatalf("%s: the CPU was not measured", side.name)
		}
		t.Logf("%s: %s", side.name, u.sentence())
		if u.bound() != side.bound || !strings.Contains(u.sentence(), side.want) {
			t.Errorf("%s: %q\nwant %q", side.name, u.sentence(), side.want)
		}
	}
}

// TestConcurrencyPlateauNamesTheBottleneck: the plateau finding says who
// held the most parallel step, from its CPU.
func TestConcurrencyPlateauNamesTheBottleneck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cpuUs float64 // per op at c=20, 100 ops in 1 s on 2 cores
		want  string
	}{
		{19000, "; at c=20 the client used 95% of the 2 cores its workers could use (1.90 cores of CPU): this client's CPU is the limit"},
		{6000, "; at c=20 the client was 30% busy (0.60 of the 2 cores its workers could use): the server or the path is the limit, not this client."},
		{0, ": bandwidth, the server or this client is the bottleneck."},
	} {
		var rs []document.Result
		for _, conc := range []int{1, 5, 20} {
			rs = append(rs, document.Result{Workload: "concurrency", Op: "get", SizeBytes: 1 << 20, Concurrency: conc, Count: 100,
				WallS: 1, AggregateMBps: 100, ClientCPUusPerOp: c.cpuUs})
		}
		d := labDoc(rs...)
		d.Lab, d.Client.CPUs = nil, 2
		fs := concurrencyRule(&Facts{Doc: d})
		if len(fs) != 1 || !strings.Contains(fs[0].Text, c.want) {
			t.Errorf("CPU %v µs/op: %v\nwant %q", c.cpuUs, fs, c.want)
		}
	}
}
