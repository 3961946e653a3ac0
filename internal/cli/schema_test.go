package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// TestEveryCommandsJSONMatchesSchema runs each command that prints an
// objbench/v1 document on the lab, small and bounded (a few seconds in
// all), so that runCLI checks every document against the schema: run on
// each workload, strategies, probe, explain, the shards of a run and
// their merge, compare, runs and show. A mixed step's results, and the merged
// ones, carry the facts of the closed-loop steps: the client's CPU, the
// phases and the pacer's start lags.
func TestEveryCommandsJSONMatchesSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	ok := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, ctx, args...)
		if code != 0 {
			t.Fatalf("objbench %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	var ids []string
	runs := [][]string{
		{"--workload", "latency", "--gets", "5", "--op-sizes", "0", "--op-count", "1"},
		{"--workload", "throughput", "--sizes", "16KiB", "--size-count", "2"},
		{"--workload", "concurrency", "--concurrency", "1,2,3", "--concurrency-size", "16KiB"},
	}
	for _, r := range runs {
		var d document.Document
		if err := json.Unmarshal([]byte(ok(append([]string{"run", "lab:local", "--json", "-q", "--db", db}, r...)...)), &d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.RunID)
	}
	// Bounded by count, not time: a 1 s step on a loaded machine once sent
	// no HEAD at all; 200 requests at 10% HEAD miss it with odds 0.9^200
	// (0.9^100 per shard).
	mixed := []string{"run", "lab:same-zone", "--workload", "mixed", "--mix", "get=60,put=30,head=10", "--keys", "5", "--sizes", "1KiB",
		"--rate", "200", "--requests", "200", "--duration", "30s", "--json", "-q"}
	var d document.Document
	if err := json.Unmarshal([]byte(ok(append(mixed, "--db", db)...)), &d); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, d.RunID)
	checkFilled(t, "mixed", d.Results)
	ok("strategies", "lab:local", "--lab-api", "s3", "--objects", "3", "--size", "0", "--ops", "put", "--json", "-q", "--db", db)
	ok("probe", "lab:local", "--count", "5", "--json", "--no-save")
	if _, err := exec.LookPath("curl"); err == nil {
		ok("--db", db, "explain", "local", "--apis", "s3", "--json", "--", "sh", "-c",
			`curl -sS -o /dev/null -X PUT --data-binary x "$AWS_ENDPOINT_URL/objbench/k"`)
	}
	// Two shards of a mixed run, merged.
	results := filepath.Join(dir, "shards")
	for _, i := range []string{"0/2", "1/2"} {
		ok(append(mixed, "--shard", i, "--run-id", "schema", "--results-to", results, "--no-save")...)
	}
	if err := json.Unmarshal([]byte(ok("merge", filepath.Join(results, "schema"), "--json", "--no-save")), &d); err != nil {
		t.Fatal(err)
	}
	checkFilled(t, "merged mixed", d.Results)
	ok("compare", ids[0], ids[1], "--json", "--db", db)
	ok("runs", "--json", "--db", db)
	for _, id := range ids {
		ok("show", id, "--json", "--db", db)
	}
}

// checkFilled: every op of a mixed step has the client's CPU, its phases
// and the pacer's start lags.
func checkFilled(t *testing.T, name string, rs []document.Result) {
	t.Helper()
	if len(rs) != 3 {
		t.Fatalf("%s: %d results, want one per op of the mix", name, len(rs))
	}
	for _, r := range rs {
		if r.Count == 0 || r.ClientCPUusPerOp <= 0 || r.ClientCPUsPerGB < 0 || r.PhasesMs["wait"].Count != r.Count ||
			r.OpenLoop == nil || r.OpenLoop.StartLagMs.Count == 0 || r.OpenLoop.StartLagMs.Max <= 0 {
			t.Errorf("%s %s: count %d, client CPU %v µs/op, wait phase %+v, open loop %+v", name, r.Op, r.Count, r.ClientCPUusPerOp,
				r.PhasesMs["wait"], r.OpenLoop)
		}
	}
}
