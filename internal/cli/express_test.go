package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
)

// TestRunExpressLab: a run on the lab's directory bucket shows one
// CreateSession per client (each worker's cold client, one request at a
// time), the lab created those sessions and the setup client's, signed
// every other request with a session (none refused), and the cost line is
// at S3 Express One Zone's prices, with its data charges.
func TestRunExpressLab(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "run", "lab", "--express", "--json", "--workload", "latency,throughput",
		"--gets", "40", "--latency-concurrency", "2", "--op-sizes", "1KiB", "--op-count", "3", "--sizes", "1MiB", "--size-count", "3", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d document.Document
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	x := d.Express
	if x == nil || x.Lab == nil || !strings.HasSuffix(x.Bucket, "--x-s3") || !strings.Contains(d.Target.URL, x.Bucket) {
		t.Fatalf("express %+v, target %+v", x, d.Target)
	}
	if x.Clients < 2 || x.CreateSession != int64(x.Clients) {
		t.Errorf("%d CreateSession requests from %d clients, want one per client", x.CreateSession, x.Clients)
	}
	if got, want := x.Lab.SessionsCreated, x.CreateSession+x.SetupCreateSession; got != want {
		t.Errorf("lab created %d sessions, the clients asked for %d", got, want)
	}
	// Every measured request but the sessions' own was signed with one.
	var measured int64
	for _, r := range d.Results {
		if r.Errors != 0 {
			t.Errorf("%s %s: %d errors", r.Workload, r.Op, r.Errors)
		}
		measured += int64(math.Round(float64(r.Count) * r.RequestsPerOp))
	}
	if x.Lab.Refused != 0 || x.Lab.SessionSigned+x.Lab.AccountSigned < measured-x.CreateSession {
		t.Errorf("lab: %d session-signed, %d account-signed, %d refused; the run measured %d requests (%d CreateSession)",
			x.Lab.SessionSigned, x.Lab.AccountSigned, x.Lab.Refused, measured, x.CreateSession)
	}
	// A step of few operations takes more than one request per op: its
	// clients' CreateSession, which the finding names.
	for _, f := range d.Findings {
		if f.ID == "requests-per-object" && !strings.Contains(f.Text, "CreateSession") {
			t.Errorf("finding %q does not name the sessions", f.Text)
		}
	}
	c := d.Cost
	want := analysis.RunCost(&d, analysis.DefaultPrices())
	if c == nil || c.Provider != "s3express" || c.DataUSD <= 0 || want == nil || c.TotalUSD != want.TotalUSD || c.RequestsUSD != want.RequestsUSD {
		t.Errorf("cost %+v, want S3 Express One Zone's: %+v", c, want)
	}
	if p := analysis.DefaultPrices()["s3express"]; c != nil && c.Prices != p.Name {
		t.Errorf("priced at %q, want %q", c.Prices, p.Name)
	}
}

// TestExpressRefusals: a directory bucket refuses minio-go, and the lab's
// directory bucket is an S3 bucket's option.
func TestExpressRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "s3://logs--usw2-az1--x-s3", "--client", "minio", "--workload", "latency"}, "minio cannot reach directory bucket"},
		{[]string{"run", "lab", "--express", "--client", "minio", "--workload", "latency"}, "minio cannot reach directory bucket"},
		{[]string{"run", "lab", "--express", "--lab-api", "gcs", "--workload", "latency"}, "--express is an S3 bucket's class"},
		{[]string{"run", "lab", "--session-lifetime", "1m", "--workload", "latency"}, "add --express"},
		{[]string{"lab", "check", "--express"}, "not a bucket's class"},
	} {
		code, _, errOut := runCLI(t, context.Background(), tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("objbench %s: exit %d, %q; want a usage error saying %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}

// TestExplainExpress: a program with aws-sdk-go-v2 (examples/clients'
// go-awssdk, one reused client) explained on the lab's directory bucket:
// its CreateSession is on the timeline, once, first on its first
// connection, before any object request, none refused, and the cost at
// S3 Express One Zone's prices. (That the other requests carried the
// session's token is on the lab's record: TestExpressOneSessionPerClient.)
func TestExplainExpress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/clients/go-awssdk")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "go-awssdk")
	build := exec.Command("go", "build", "-o", bin, "./examples/clients/go-awssdk")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build go-awssdk: %v\n%s", err, out)
	}
	code, out, errOut := runCLI(t, context.Background(), "explain", "--express", "--no-save", "--json", "--", bin, "reused", "5", "1KiB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d document.ExplainDocument
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	e := d.Explain
	if e.Operations["CreateSession"] != 1 || e.Operations["PutObject"] != 5 || e.Operations["GetObject"] != 5 {
		t.Errorf("operations %v, want 1 CreateSession, 5 PutObject, 5 GetObject", e.Operations)
	}
	if d.Lab == nil || !strings.HasSuffix(d.Lab.DirectoryBucket, "--x-s3") {
		t.Errorf("lab %+v: no directory bucket", d.Lab)
	}
	first := true
	for _, c := range e.Conns {
		for _, r := range c.Requests {
			switch {
			case first && r.Operation != "CreateSession":
				t.Errorf("first request %s, want CreateSession", r.Operation)
			case r.Operation == "CreateSession" && r.Status != 200:
				t.Errorf("CreateSession answered %d", r.Status)
			case r.Status >= 400:
				t.Errorf("%s answered %d", r.Operation, r.Status)
			}
			first = false
		}
	}
	if e.Cost == nil || e.Cost.Provider != "s3express" {
		t.Errorf("cost %+v, want S3 Express One Zone's", e.Cost)
	}
	if strings.Contains(out, "S3EXPRESSLAB") {
		t.Error("the document holds a session's access key")
	}

	// Sessions of 61 s, refreshed by the SDK once within a minute of
	// expiring: a program that runs for seconds shows the refreshes.
	start := time.Now()
	code, out, errOut = runCLI(t, context.Background(), "explain", "--express", "--session-lifetime", "61s", "--no-save", "--json", "--", bin, "reused", "300", "1KiB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	elapsed := time.Since(start)
	d = document.ExplainDocument{}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	// One at the start, then each second one or more: every operation
	// that starts while a refresh is in flight sends its own (the SDK's
	// per-operation singleflight group), a round trip's worth of them.
	n := d.Explain.Operations["CreateSession"]
	var at []string
	for _, c := range d.Explain.Conns {
		for _, r := range c.Requests {
			if r.Status >= 400 {
				t.Errorf("%s %s answered %d", r.ID, r.Operation, r.Status)
			}
			if r.Operation == "CreateSession" {
				at = append(at, fmt.Sprintf("%s@%.3fs", r.ID, r.ArrivedS))
			}
		}
	}
	if most := 1 + 3*int(elapsed/time.Second+1); n < 2 || n > most {
		t.Errorf("%d CreateSession requests over %s, want 2 to %d", n, elapsed.Round(time.Millisecond), most)
	}
	t.Logf("%d CreateSession requests in %s (sessions of 61 s): %v; operations %v", n, elapsed.Round(time.Millisecond), at, d.Explain.Operations)
}
