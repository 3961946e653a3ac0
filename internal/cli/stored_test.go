package cli

import (
	"context"
	"testing"
)

// TestReadsOnlyWhatWasWritten is issue 28's first defect end to end on
// the lab: the command, whose PUT step reached --duration before
// writing its 30 objects, then asked for all 30; and a run whose uploads
// fail at random (503 SlowDown), alone and as one shard of two. No step
// may count a not_found: every object a read asks for was written.
func TestReadsOnlyWhatWasWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"duration bound", []string{"--rtt", "20ms", "--no-tls", "--bandwidth", "16Mbit", "--queue", "8", "--workload", "throughput",
			"--sizes", "1MiB", "--size-count", "30", "--conn", "fresh", "--duration", "1500ms"}},
		{"failed uploads", []string{"--fault", "slowdown=25%", "--workload", "latency,throughput,concurrency", "--gets", "10",
			"--op-sizes", "1KiB", "--op-count", "10", "--sizes", "1KiB", "--size-count", "12", "--concurrency", "4", "--concurrency-size", "1KiB"}},
		{"failed uploads, one shard of two", []string{"--fault", "slowdown=25%", "--workload", "throughput", "--sizes", "1KiB",
			"--size-count", "12", "--shard", "1/2", "--run-id", "stored-shards"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"run", "lab", "--json", "--no-save", "-q"}, tc.args...)
			code, out, errOut := runCLI(t, ctx, args...)
			d := parseDoc(t, out)
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var puts int64
			for _, r := range d.Results {
				if r.Op == "put" {
					puts = r.Count
				}
				if n := r.ErrorsByClass["not_found"]; n > 0 {
					t.Errorf("%s %s %d B: %d not_found: objbench asked for objects it never wrote", r.Workload, r.Op, r.SizeBytes, n)
				}
				if tc.name == "duration bound" && r.Op == "get" && (r.Errors != 0 || r.Count > puts || puts >= 30) {
					t.Errorf("get: %d done, %d errors, after %d uploads: want only the uploaded objects read, and fewer than 30 uploaded",
						r.Count, r.Errors, puts)
				}
			}
		})
	}
}
