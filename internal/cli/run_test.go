package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document/schematest"
)

// quick keeps end-to-end runs small.
var quick = []string{"--gets", "40", "--op-sizes", "0,1KiB", "--op-count", "3", "--sizes", "16KiB,1MiB",
	"--size-count", "3", "--concurrency", "1,3", "--concurrency-size", "256KiB", "-q"}

// runCLI runs objbench with args. The objbench/v1 document any command
// prints with --json is checked against docs/objbench-v1.schema.json.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(ctx, args, &out, &errb)
	if documentCommand(args) && bytes.HasPrefix(bytes.TrimSpace(out.Bytes()), []byte("{")) {
		if err := schematest.Check(out.Bytes()); err != nil {
			t.Errorf("objbench %s: the --json document does not match the schema:\n%v", strings.Join(args, " "), err)
		}
	}
	return code, out.String(), errb.String()
}

// documentCommand reports whether args print an objbench/v1 document:
// --json to stdout of a command that writes one.
func documentCommand(args []string) bool {
	json, cmd := false, ""
	for i, a := range args {
		switch {
		case a == "--":
			return json && cmd != ""
		case a == "--json":
			json = true
		case a == "-o" || strings.HasPrefix(a, "-o="):
			return false
		case cmd == "" && (i == 0 || !strings.HasPrefix(args[i-1], "--db")) && slices.Contains(schemaCommands, a):
			cmd = a
		}
	}
	return json && cmd != ""
}

// schemaCommands print an objbench/v1 document with --json.
var schemaCommands = []string{"run", "probe", "merge", "strategies", "startup", "explain", "compare", "show", "idle-timeout", "runs", "lab"}

type doc struct {
	Schema  string `json:"schema"`
	RunID   string `json:"run_id"`
	Target  struct{ URL, Provider, Endpoint string }
	Lab     *struct{ API, Profile, Network string }
	Results []struct {
		Workload      string           `json:"workload"`
		Op            string           `json:"op"`
		SizeBytes     int64            `json:"size_bytes"`
		Concurrency   int              `json:"concurrency"`
		Count         int64            `json:"count"`
		Errors        int64            `json:"errors"`
		ErrorsByClass map[string]int64 `json:"errors_by_class"`
		Reused        float64          `json:"reused_fraction"`
		AggregateMBps float64          `json:"aggregate_mb_per_s"`
		TTFB          struct{ P50 float64 }
		Phases        map[string]struct{ P50, P99 float64 } `json:"phases_ms"`
		First         struct {
			Count  int64   `json:"count"`
			Reused float64 `json:"reused_fraction"`
		} `json:"first_request"`
		Later struct {
			Count  int64   `json:"count"`
			Reused float64 `json:"reused_fraction"`
		} `json:"later_requests"`
	}
	Interrupted bool `json:"interrupted"`
}

func parseDoc(t *testing.T, s string) doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
	if d.Schema != "objbench/v1" || d.RunID == "" {
		t.Fatalf("schema %q run_id %q", d.Schema, d.RunID)
	}
	return d
}

func TestRunLabJSON(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), append([]string{"run", "--json"}, quick...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d := parseDoc(t, out)
	if d.Lab == nil || d.Lab.API != "s3" || d.Target.Provider != "s3" {
		t.Errorf("lab %+v target %+v", d.Lab, d.Target)
	}
	seen := map[string]int{}
	for _, r := range d.Results {
		seen[r.Workload]++
		if r.Errors != 0 {
			t.Errorf("%s %s %d: %d errors", r.Workload, r.Op, r.SizeBytes, r.Errors)
		}
		if r.Count == 0 {
			t.Errorf("%s %s %d: no successful requests", r.Workload, r.Op, r.SizeBytes)
		}
		if r.Workload == "latency" && r.Op == "get" {
			if r.Count != 40 || r.First.Count != 1 || r.First.Reused != 0 || r.Later.Reused < 0.95 {
				t.Errorf("latency get: count %d first %+v later %+v", r.Count, r.First, r.Later)
			}
			if r.Phases["connect"].P99 <= 0 {
				t.Errorf("first request opened no connection: %+v", r.Phases)
			}
		}
		if r.Workload == "concurrency" && r.AggregateMBps <= 0 {
			t.Errorf("concurrency %d %s: aggregate %v", r.Concurrency, r.Op, r.AggregateMBps)
		}
	}
	// latency: get + 3 ops x 2 sizes; throughput: 2 ops x 2 sizes; concurrency: 2 ops x 2 levels.
	if seen["latency"] != 7 || seen["throughput"] != 4 || seen["concurrency"] != 4 {
		t.Errorf("steps per workload: %v", seen)
	}
}

// Both S3 clients make the same steps with the same counts, phases and
// connection reuse on the lab, and every step reports its client CPU.
func TestRunClientsAlike(t *testing.T) {
	t.Parallel()
	args := []string{"run", "--json", "-q", "--no-save", "--workload", "latency,throughput", "--gets", "30", "--latency-concurrency", "1",
		"--op-sizes", "0,1KiB", "--op-count", "3", "--sizes", "1MiB", "--size-count", "2"}
	docs := map[string]doc{}
	for _, client := range []string{"sdk", "minio"} {
		code, out, errOut := runCLI(t, context.Background(), append(args, "--client", client)...)
		if code != 0 {
			t.Fatalf("--client %s: exit %d: %s", client, code, errOut)
		}
		docs[client] = parseDoc(t, out)
		var raw struct {
			Options map[string]string `json:"options"`
			Results []struct {
				CPUPerOp float64 `json:"client_cpu_us_per_op"`
				CPUPerGB float64 `json:"client_cpu_s_per_gb"`
				Op       string  `json:"op"`
				Size     int64   `json:"size_bytes"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatal(err)
		}
		if raw.Options["client"] != client {
			t.Errorf("options.client = %q, want %q", raw.Options["client"], client)
		}
		for _, r := range raw.Results {
			if r.CPUPerOp <= 0 || (r.Size > 0 && (r.Op == "get" || r.Op == "put")) != (r.CPUPerGB > 0) {
				t.Errorf("--client %s %s %d: client CPU %v µs/op, %v s/GB", client, r.Op, r.Size, r.CPUPerOp, r.CPUPerGB)
			}
		}
	}
	sdk, mc := docs["sdk"], docs["minio"]
	if len(sdk.Results) != len(mc.Results) || len(sdk.Results) == 0 {
		t.Fatalf("steps: sdk %d, minio %d", len(sdk.Results), len(mc.Results))
	}
	for i, a := range sdk.Results {
		b := mc.Results[i]
		if a.Op != b.Op || a.SizeBytes != b.SizeBytes || a.Count != b.Count || b.Errors != 0 || a.First.Count != b.First.Count ||
			a.First.Reused != b.First.Reused || (a.Later.Reused >= 0.95) != (b.Later.Reused >= 0.95) {
			t.Errorf("step %d: sdk %s %d count %d first %+v later %+v; minio %s %d count %d errors %d first %+v later %+v",
				i, a.Op, a.SizeBytes, a.Count, a.First, a.Later, b.Op, b.SizeBytes, b.Count, b.Errors, b.First, b.Later)
		}
		for _, ph := range []string{"send", "wait", "recv"} {
			if (a.Phases[ph].P99 > 0) != (b.Phases[ph].P99 > 0) && a.Op != "delete" && a.Op != "head" {
				t.Errorf("step %d %s %d: phase %s p99 sdk %v, minio %v", i, a.Op, a.SizeBytes, ph, a.Phases[ph].P99, b.Phases[ph].P99)
			}
		}
	}
}

func TestRunFreshConnections(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "run", "--json", "--conn", "fresh", "--workload", "latency",
		"--gets", "30", "--op-sizes", "1KiB", "--op-count", "2", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, r := range parseDoc(t, out).Results {
		if r.Reused != 0 || r.Later.Reused != 0 {
			t.Errorf("%s %s: reused %v later %v with --conn fresh", r.Op, r.Workload, r.Reused, r.Later.Reused)
		}
		if r.Phases["connect"].P50 <= 0 {
			t.Errorf("%s: connect p50 %v with --conn fresh", r.Op, r.Phases["connect"].P50)
		}
	}
}

func TestRunTextOutputToFile(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/out.txt"
	code, out, errOut := runCLI(t, context.Background(), "run", "--workload", "latency", "--gets", "10",
		"--op-sizes", "0", "--op-count", "1", "-q", "-o", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("stdout not empty with -o: %q", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p50", "p99", "connect", "get"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("text output lacks %q:\n%s", want, b)
		}
	}
}

func TestRunInterruptedPrintsPartial(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	// Long enough for the lab to start and answer a first GET on a machine
	// busy with -race and other packages' tests (1.5 s once left none).
	time.AfterFunc(5*time.Second, cancel)
	code, out, errOut := runCLI(t, ctx, "run", "--json", "--workload", "latency", "--gets", "10000000", "--duration", "0", "-q")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, ExitInterrupted, errOut)
	}
	d := parseDoc(t, out)
	if !d.Interrupted || len(d.Results) != 1 || d.Results[0].Count == 0 {
		t.Errorf("partial results: interrupted %v, %d results", d.Interrupted, len(d.Results))
	}
}

// silentListener accepts connections and never answers.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestRunBadInput(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "x") // fixed dummy keys: no real chain is consulted
	t.Setenv("AWS_SECRET_ACCESS_KEY", "y")
	silent := silentListener(t)
	dir := t.TempDir()
	priceFile := func(name, body string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown scheme", []string{"run", "ftp://bucket"}, 2, "unknown scheme"},
		{"malformed url", []string{"run", "s3:/bucket"}, 2, "malformed target"},
		{"empty bucket", []string{"run", "s3://"}, 2, "malformed target"},
		{"dotdot prefix", []string{"run", "s3://bucket/../x"}, 2, "may not contain"},
		{"bad size", []string{"run", "--sizes", "12XB"}, 2, "bad size"},
		{"zero count", []string{"run", "--gets", "0"}, 2, "positive"},
		{"negative count", []string{"run", "--size-count", "-3"}, 2, "positive"},
		{"bad level", []string{"run", "--concurrency", "1,0"}, 2, "bad count"},
		{"empty level", []string{"run", "--concurrency", "1,,2"}, 2, "empty item"},
		{"empty size", []string{"run", "--sizes", "1KiB,,1MiB"}, 2, "empty item"},
		{"prices missing", []string{"run", "--prices", dir + "/none.json"}, 2, "--prices"},
		{"prices bad json", []string{"run", "--prices", priceFile("bad.json", `{"s3": `)}, 2, "--prices"},
		{"prices bad yaml", []string{"run", "--prices", priceFile("bad.yaml", "s3: [\n")}, 2, "--prices"},
		{"prices negative", []string{"run", "--prices", priceFile("neg.json", `{"s3": {"per_1000_requests": {"get": -0.1}}}`)}, 2, "negative price"},
		{"prices unknown provider", []string{"run", "--prices", priceFile("prov.yaml", "b2:\n  egress_per_gb: 0.01\n")}, 2, "unknown provider"},
		{"strategies prices", []string{"strategies", "--prices", dir + "/none.json"}, 2, "--prices"},
		{"strategies empty size", []string{"strategies", "--size", "0,"}, 2, "empty item"},
		{"unknown workload", []string{"run", "--workload", "latency,speed"}, 2, "unknown workload"},
		{"unknown conn", []string{"run", "--conn", "http3"}, 2, "unknown connection strategy"},
		{"unknown client", []string{"run", "--client", "boto3"}, 2, "use sdk or minio"},
		{"minio client off S3", []string{"run", "--client", "minio", "--lab-api", "gcs"}, 2, "--client minio is an S3 client"},
		{"two targets", []string{"run", "s3://aaa", "s3://bbb"}, 2, "at most one TARGET"},
		{"unknown flag", []string{"run", "--nope"}, 2, "unknown flag"},
		{"unknown profile", []string{"run", "lab:mars"}, 2, "profile"},
		{"refused", []string{"run", "s3://bucket", "--endpoint", "http://127.0.0.1:1"}, 1, "cannot connect"},
		{"no answer", []string{"run", "s3://bucket", "--endpoint", silent, "--timeout", "500ms"}, 1, "did not answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, context.Background(), tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (%s)", code, tc.code, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q lacks %q", errOut, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 {
				t.Errorf("stderr has %d lines, want one: %q", n+1, errOut)
			}
		})
	}
}
