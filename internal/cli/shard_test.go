package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/shard"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

// helperArgs is the environment variable that makes TestShardHelperProcess
// run objbench with its arguments: a shard in a process of its own.
const helperArgs = "OBJBENCH_TEST_HELPER_ARGS"

// TestShardHelperProcess is objbench's main in a child process (see
// startShard); it skips when run as a test.
func TestShardHelperProcess(t *testing.T) {
	args := os.Getenv(helperArgs)
	if args == "" {
		t.Skip("the child process of the shard tests")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// shardProc is one shard running in a child process.
type shardProc struct {
	cmd         *exec.Cmd
	out, errOut bytes.Buffer
}

// startShard starts objbench args in a child process with the engine's
// environment variables added (and none of the engines' from this one).
func startShard(t *testing.T, engineEnv []string, args ...string) *shardProc {
	t.Helper()
	p := &shardProc{cmd: exec.Command(os.Args[0], "-test.run=^TestShardHelperProcess$")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "JOB_COMPLETION") && !strings.HasPrefix(k, "CLOUD_RUN_") && !strings.HasPrefix(k, "AWS_BATCH_") && !strings.HasPrefix(k, "OBJBENCH_SHARDS") &&
			!strings.HasPrefix(k, "OBJBENCH_RUN_ID") && !strings.HasPrefix(k, "OBJBENCH_JOB_NAME") {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Env = append(p.cmd.Env, engineEnv...)
	p.cmd.Env = append(p.cmd.Env, helperArgs+"="+strings.Join(args, "\x1f"))
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errOut
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

func (p *shardProc) wait() int {
	err := p.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// createBucket makes a bucket on the test MinIO for shards to share.
func createBucket(t *testing.T, ep string) (string, storage.Backend) {
	t.Helper()
	name := randomBucket(t)
	b, err := providers.Open(context.Background(), storage.Target{Scheme: "s3", Bucket: name},
		storage.Options{Endpoint: ep, Region: "us-east-1", HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return name, b
}

func newRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "t" + hex.EncodeToString(b)
}

// engineEnvs place shard i of 4 of run id by each engine in turn: a
// Kubernetes Indexed Job, a Cloud Run Job, an AWS Batch array job, and
// the --shard flag; extra are the flags that engine's shard needs.
func engineEnvs(id string, i int) (env []string, extra []string) {
	switch i % 4 {
	case 0:
		return []string{"JOB_COMPLETION_INDEX=" + itoa(i), "OBJBENCH_JOB_NAME=" + id}, []string{"--shards", "4"}
	case 1:
		return []string{"CLOUD_RUN_TASK_INDEX=" + itoa(i), "CLOUD_RUN_TASK_COUNT=4", "CLOUD_RUN_EXECUTION=" + id}, nil
	case 2:
		return []string{"AWS_BATCH_JOB_ARRAY_INDEX=" + itoa(i), "AWS_BATCH_JOB_ARRAY_SIZE=4", "AWS_BATCH_JOB_ID=" + id + ":" + itoa(i)}, nil
	}
	return nil, []string{"--shard", itoa(i) + "/4", "--run-id", id}
}

func itoa(i int) string { return strconv.Itoa(i) }

// shardRun is a run of 4 shards in 4 processes, merged.
type shardRun struct {
	id, resultsTo, dir string
	docs               []document.Document // each shard's --json output
	merged             document.Document
	steps              []results.Step // the merged run's, from its database
}

// runShards runs 4 shards of one run against MinIO, each placed by another
// engine's variables (and the fourth by --shard), with args added, then
// merges them into a database of its own.
func runShards(t *testing.T, ep, bucket string, args ...string) *shardRun {
	t.Helper()
	r := &shardRun{id: newRunID(), resultsTo: "s3://" + bucket + "/results/", dir: t.TempDir()}
	var procs []*shardProc
	for i := range 4 {
		env, extra := engineEnvs(r.id, i)
		a := append([]string{"run", "s3://" + bucket, "--endpoint", ep, "--workload", "latency", "--objects", "4",
			"--results-to", r.resultsTo, "--start-in", "5s", "--json", "-q", "--db", filepath.Join(r.dir, "shard-"+itoa(i)+".db")}, args...)
		procs = append(procs, startShard(t, env, append(a, extra...)...))
	}
	for i, p := range procs {
		if code := p.wait(); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, p.errOut.String())
		}
		var d document.Document
		if err := json.Unmarshal(p.out.Bytes(), &d); err != nil {
			t.Fatalf("shard %d output: %v", i, err)
		}
		if d.Shard == nil || d.Shard.Index != i || d.Shard.Run != r.id || d.RunID != r.id+"-shard-"+itoa(i) {
			t.Fatalf("shard %d: document run %s shard %+v", i, d.RunID, d.Shard)
		}
		r.docs = append(r.docs, d)
	}
	mergedDB := filepath.Join(r.dir, "merged.db")
	code, out, errOut := runCLI(t, context.Background(), "merge", r.resultsTo+r.id+"/", "--endpoint", ep, "--expect", "4", "--db", mergedDB)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	t.Logf("objbench merge %s%s/ --expect 4:\n%s", r.resultsTo, r.id, out)
	st, err := results.Open(context.Background(), mergedDB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, steps, err := st.Get(context.Background(), r.id)
	if err != nil {
		t.Fatal(err)
	}
	r.steps = steps
	if err := json.Unmarshal(run.Document, &r.merged); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, context.Background(), "show", r.id, "--db", mergedDB); code != 0 || !strings.Contains(out, "merged 4 of 4 shards") {
		t.Errorf("show: exit %d: %s %s", code, out, errOut)
	}
	return r
}

// TestShardsMinIO runs 4 shards in 4 processes against MinIO, each placed
// by another engine's variables, then merges them. At --rate 400 in total
// (16 workers a shard): counts add up, the merged histogram is the union
// of the shards' bucket for bucket, the rate over the common window is
// 400 ± 3%, and no shard touched another's keys. Then, with one worker a
// shard (which keeps every sample it makes), the merged histogram is that
// of all the shards' raw samples.
func TestShardsMinIO(t *testing.T) {
	if raceDetector {
		t.Skip("timing test (the rate within 3%): runs in scripts/test's timing step")
	}
	ep := minio(t)
	bucket, b := createBucket(t, ep)
	r := runShards(t, ep, bucket, "--gets", "3200", "--rate", "400", "--max-inflight", "64", "--op-sizes", "1KiB", "--op-count", "8")
	// Counts are the sum of the shards'.
	for k, res := range r.merged.Results {
		var sum int64
		for _, d := range r.docs {
			sum += d.Results[k].Count
		}
		if res.Count != sum || res.Errors != 0 {
			t.Errorf("result %d %s: merged count %d errors %d, shards' sum %d", k, res.Op, res.Count, res.Errors, sum)
		}
	}
	if r.merged.Results[0].Op != "get" || r.merged.Results[0].Count != 3200 {
		t.Fatalf("merged get: %d", r.merged.Results[0].Count)
	}
	// The merged histogram is the union of the shards' own (each saved in
	// its database), bucket for bucket; every request's key is in its
	// shard's key space.
	union := stats.NewSum()
	for i := range 4 {
		ss, err := results.Open(context.Background(), filepath.Join(r.dir, "shard-"+itoa(i)+".db"))
		if err != nil {
			t.Fatal(err)
		}
		_, shardSteps, err := ss.Get(context.Background(), r.id+"-shard-"+itoa(i))
		if err == nil {
			err = union.AddEncoded(string(shardSteps[0].Histograms["total"]))
		}
		prefix := "objbench/" + r.id + "/shard-" + itoa(i) + "/"
		if err == nil {
			err = ss.Samples(context.Background(), r.id+"-shard-"+itoa(i), func(s results.SampleRow) error {
				if !strings.HasPrefix(s.Key, prefix) {
					t.Errorf("shard %d touched %s, outside its %s", i, s.Key, prefix)
				}
				return nil
			})
		}
		ss.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := stats.DecodeHistogram(r.steps[0].Histograms["total"])
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(union.Histogram()) || got.Count() != 3200 {
		t.Fatalf("merged histogram (%d values, p99 %v) differs from the union of the shards' (%d)", got.Count(), got.Quantile(99), union.Count())
	}
	// The rate: 400 ops/s in total over the window all four ran.
	ms := r.merged.Merge.Steps[0]
	t.Logf("get: %.1f ops/s over the common %.2f s, %.1f over the whole %.2f s", ms.CommonOpsPerS, ms.CommonWindowS, ms.WholeOpsPerS, ms.WholeWindowS)
	if math.Abs(ms.CommonOpsPerS-400)/400 > 0.03 {
		t.Errorf("merged rate %.1f ops/s over the common window, want 400 ± 3%%", ms.CommonOpsPerS)
	}
	// Each shard's prefix is empty at the end (cleaned up).
	for i := range 4 {
		prefix := "objbench/" + r.id + "/shard-" + itoa(i) + "/"
		var left []string
		_ = b.List(context.Background(), prefix, func(oi storage.ObjectInfo) error { left = append(left, oi.Key); return nil })
		t.Logf("%s: %d objects left", prefix, len(left))
		if len(left) != 0 {
			t.Errorf("%s holds %v after the run", prefix, left)
		}
	}

	// All raw samples: one worker a shard keeps every sample. The samples
	// keep wall-clock times, the histograms durations on the monotonic
	// clock, which may differ by microseconds: quantiles within 1%.
	r = runShards(t, ep, bucket, "--gets", "400", "--latency-concurrency", "4", "--op-sizes", "0", "--op-count", "4")
	var totals []int64
	for i := range 4 {
		ss, err := results.Open(context.Background(), filepath.Join(r.dir, "shard-"+itoa(i)+".db"))
		if err != nil {
			t.Fatal(err)
		}
		err = ss.Samples(context.Background(), r.id+"-shard-"+itoa(i), func(s results.SampleRow) error {
			if s.Step == 0 && s.OK() {
				totals = append(totals, s.Total().Microseconds())
			}
			return nil
		})
		ss.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, err = stats.DecodeHistogram(r.steps[0].Histograms["total"]); err != nil {
		t.Fatal(err)
	}
	raw := stats.HistogramOf(totals)
	for _, q := range []float64{50, 90, 99, 99.9, 100} {
		g, w := got.Quantile(q), raw.Quantile(q)
		t.Logf("p%v: merged %.3f ms, raw samples %.3f ms", q, g, w)
		if math.Abs(g-w) > 0.01*w+0.01 || raw.Count() != got.Count() || got.Count() != 400 {
			t.Errorf("p%v: merged %.3f ms of %d values, all shards' raw samples %.3f ms of %d", q, g, got.Count(), w, raw.Count())
		}
	}
}

// TestShardKilledMinIO: of 4 shards, one never runs and one is stopped
// mid-run (SIGTERM) and writes what it has; merge names both, reports the
// partial data, and exits 1 under --expect 4.
func TestShardKilledMinIO(t *testing.T) {
	ep := minio(t)
	bucket, _ := createBucket(t, ep)
	id := newRunID()
	dir := t.TempDir()
	resultsTo := "s3://" + bucket + "/results/"
	var procs []*shardProc
	for _, i := range []int{0, 1, 3} {
		env, extra := engineEnvs(id, i)
		gets := "40"
		if i == 3 {
			gets = "100000" // runs until stopped
		}
		args := append([]string{"run", "s3://" + bucket, "--endpoint", ep, "--workload", "latency", "--objects", "2",
			"--gets", gets, "--rate", "200", "--op-sizes", "1KiB", "--op-count", "2", "--results-to", resultsTo, "-q", "--no-save",
			"--db", filepath.Join(dir, "x.db")}, extra...)
		procs = append(procs, startShard(t, env, args...))
	}
	for _, p := range procs[:2] {
		if code := p.wait(); code != 0 {
			t.Fatalf("exit %d: %s", code, p.errOut.String())
		}
	}
	time.Sleep(2 * time.Second)
	_ = procs[2].cmd.Process.Signal(syscall.SIGTERM)
	if code := procs[2].wait(); code != ExitInterrupted {
		t.Fatalf("stopped shard: exit %d, want %d: %s", code, ExitInterrupted, procs[2].errOut.String())
	}
	code, out, errOut := runCLI(t, context.Background(), "merge", resultsTo, "--endpoint", ep, "--expect", "4", "--no-save")
	t.Logf("merge --expect 4: exit %d\n%s%s", code, out, errOut)
	if code != ExitFailure {
		t.Fatalf("merge of an incomplete run under --expect 4: exit %d, want 1", code)
	}
	for _, want := range []string{"merged 3 of 4 shards (0, 1, 3); missing: 2; partial: 3", "shard 3 was interrupted", "incomplete"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("merge output lacks %q", want)
		}
	}
	// Without --expect the partial run merges, with shard 3's partial data in it.
	code, out, errOut = runCLI(t, context.Background(), "merge", resultsTo, "--endpoint", ep, "--json", "--no-save")
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	var merged document.Document
	if err := json.Unmarshal([]byte(out), &merged); err != nil {
		t.Fatal(err)
	}
	if merged.Results[0].Count <= 80 || !merged.Interrupted {
		t.Fatalf("merged get count %d (shards 0 and 1 did 40 each; shard 3's partial GETs must be in it), interrupted %t", merged.Results[0].Count, merged.Interrupted)
	}
}

// TestShardBadInput: one clear line and exit 2 for each mistake, the
// results place checked before any load.
func TestShardBadInput(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "")
	dir := t.TempDir()
	ro := filepath.Join(dir, "file") // a file where a directory must go: unwritable, even for root
	if err := os.WriteFile(ro, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"shard 5/4", nil, []string{"run", "--shard", "5/4", "--run-id", "r"}, "the index must be 0 to 3"},
		{"shard 0/0", nil, []string{"run", "--shard", "0/0", "--run-id", "r"}, "count must be at least 1"},
		{"index without count", []string{"JOB_COMPLETION_INDEX", "2"}, []string{"run", "--run-id", "r"}, "is set but not the shard count"},
		{"unwritable results", nil, []string{"run", "--shard", "0/2", "--run-id", "r", "--results-to", filepath.Join(ro, "sub")}, "is not writable"},
		{"start-in without a place", nil, []string{"run", "--shard", "0/2", "--run-id", "r", "--start-in", "5s"}, "needs --results-to"},
		{"merge nothing", nil, []string{"merge", "--no-save"}, "merge needs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != nil {
				t.Setenv(tt.env[0], tt.env[1])
			}
			start := time.Now()
			args := tt.args
			if args[0] == "run" {
				args = append(args, "--workload", "latency", "--gets", "1", "-q", "--no-save")
			}
			code, _, errOut := runCLI(t, context.Background(), args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want 2 and one line with %q", code, errOut, tt.want)
			}
			if time.Since(start) > 20*time.Second {
				t.Errorf("took %s: the check came after the load", time.Since(start))
			}
		})
	}
}

// TestMergeBadDocuments: documents that cannot be merged are refused with
// one line naming the document and why (exit 1); a bad flag is exit 2.
func TestMergeBadDocuments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, runID string, i, n int) string {
		d := &document.Document{Envelope: document.NewEnvelope("run", runID, time.Now())}
		d.Shard = &document.ShardInfo{Run: runID, Index: i, Count: n}
		b, err := shard.Encode(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a.json", "r1", 0, 2), write("b.json", "r2", 1, 2)
	good, _ := os.ReadFile(a)
	corrupt := filepath.Join(dir, "corrupt.json")
	_ = os.WriteFile(corrupt, good[:len(good)/2], 0o644)
	other := filepath.Join(dir, "other.json")
	_ = os.WriteFile(other, []byte(strings.Replace(string(good), "objbench/v1", "objbench/v0", 1)), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"different runs", []string{a, b}, ExitFailure, "documents from different runs"},
		{"corrupted", []string{a, corrupt}, ExitFailure, "corrupt.json: corrupted shard document"},
		{"other schema", []string{other}, ExitFailure, `schema "objbench/v0"`},
		{"missing file", []string{filepath.Join(dir, "none.json")}, ExitFailure, "no such file"},
		{"bad --expect", []string{a, "--expect", "-1"}, ExitUsage, "--expect must be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, context.Background(), append([]string{"merge", "--no-save"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want %d and one line with %q", code, errOut, tc.code, tc.want)
			}
		})
	}
}

// TestStrategiesAndProbeShard: --shard gives strategies and probe their
// share of the objects and requests, and a key space of their own.
func TestStrategiesAndProbeShard(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "strategies", "lab:local", "--lab-api", "s3", "--shard", "1/2", "--run-id", "x",
		"--objects", "5", "--size", "0", "--ops", "put", "--json", "--no-save", "-q")
	if code != 0 {
		t.Fatalf("strategies: exit %d: %s", code, errOut)
	}
	var sd document.StrategiesDocument
	if err := json.Unmarshal([]byte(out), &sd); err != nil {
		t.Fatal(err)
	}
	if sd.RunID != "x-shard-1" || sd.Options["shard"] != "1/2" || sd.Options["objects"] != "2" || len(sd.Strategies) == 0 || sd.Strategies[0].Objects != 2 {
		t.Fatalf("strategies shard 1/2 of 5 objects: run %s options %v, %d objects", sd.RunID, sd.Options, sd.Strategies[0].Objects)
	}
	code, out, errOut = runCLI(t, context.Background(), "probe", "--shard", "0/2", "--run-id", "x", "--count", "9", "--json", "--no-save")
	if code != 0 {
		t.Fatalf("probe: exit %d: %s", code, errOut)
	}
	d := parseDoc(t, out)
	if d.Results[0].Count != 5 {
		t.Fatalf("probe shard 0/2 of 9 GETs made %d", d.Results[0].Count)
	}
	var pd document.Document
	_ = json.Unmarshal([]byte(out), &pd)
	if pd.Options["prefix"] != "objbench/probe/shard-0/" {
		t.Fatalf("probe shard pool %q", pd.Options["prefix"])
	}
}
