package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// row is one program's row in compare --json.
type row struct {
	Library  string  `json:"library"`
	Variant  string  `json:"variant"`
	ExitCode int     `json:"exit_code"`
	UploadS  float64 `json:"upload_s"`
	Error    string  `json:"error"`
	Log      string  `json:"log"`
	// Fix is the next variant's saving, measured and predicted by
	// explain's what-if from this variant's timeline.
	Fix *struct {
		To        string  `json:"to"`
		Scenario  string  `json:"scenario"`
		Measured  float64 `json:"measured_save_s"`
		Predicted float64 `json:"predicted_save_s"`
	} `json:"fix"`
	Explain struct {
		WallS          float64        `json:"wall_s"`
		RTTms          float64        `json:"rtt_ms"`
		Objects        int            `json:"objects"`
		Requests       int            `json:"requests"`
		Connections    int            `json:"connections"`
		TLSHandshakes  int            `json:"tls_handshakes"`
		MaxOpenConns   int            `json:"max_open_conns"`
		ExpectContinue int            `json:"expect_continue"`
		Operations     map[string]int `json:"operations"`
		Conns          []explainConn  `json:"conns"`
	} `json:"explain"`
}

// explainConn is what a failed structural check prints of a connection.
type explainConn struct {
	ID         int               `json:"id"`
	TLSVersion string            `json:"tls_version"`
	ALPN       string            `json:"alpn"`
	OpenedS    float64           `json:"opened_s"`
	ClosedS    float64           `json:"closed_s"`
	ClosedBy   string            `json:"closed_by"`
	BytesIn    int64             `json:"bytes_in"`
	BytesOut   int64             `json:"bytes_out"`
	Requests   []json.RawMessage `json:"requests"`
}

// connsText describes r's connections, the program's log after them: what
// tells an unexpected connection apart (one CI run saw 11 connections and
// 10 handshakes for the parallel variant, and none here in 12 tries).
func connsText(r row) string {
	var b strings.Builder
	for _, c := range r.Explain.Conns {
		fmt.Fprintf(&b, "  conn %d: tls %q alpn %q, %.3f-%.3f s, closed by %s, %d B in, %d B out, %d requests\n",
			c.ID, c.TLSVersion, c.ALPN, c.OpenedS, c.ClosedS, c.ClosedBy, c.BytesIn, c.BytesOut, len(c.Requests))
	}
	if logText, err := os.ReadFile(r.Log); err == nil {
		b.WriteString("the program's log:\n" + tail(string(logText), 20))
	}
	return b.String()
}

// compareEnv builds objbench once and says where the installed clients are;
// it skips the test when they are not installed.
func compareEnv(t *testing.T) (root, objbench string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cache := os.Getenv("OBJBENCH_CACHE")
	if cache == "" {
		cache = filepath.Join(root, ".cache")
	}
	dir := filepath.Join(cache, "clients")
	for _, p := range []string{"venv/bin/python", "node/node_modules/@aws-sdk/client-s3"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Skipf("the client libraries are not installed in %s (no %s): run scripts/clients install (scripts/test does)", dir, p)
		}
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 to run examples/clients/compare")
	}
	objbench = filepath.Join(t.TempDir(), "objbench")
	build := exec.Command("go", "build", "-o", objbench, "./cmd/objbench")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := exec.Command(objbench, "explain", "--help").Run(); err != nil {
		t.Skip("this objbench has no explain command yet: the comparison runs every program under it")
	}
	return root, objbench
}

// runCompare runs examples/clients/compare --json with args; its rows by
// "library variant".
func runCompare(t *testing.T, objbench string, args ...string) map[string]row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./compare", append([]string{"--json"}, args...)...)
	cmd.Env = append(os.Environ(), "OBJBENCH="+objbench)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var doc struct {
		Rows []row `json:"rows"`
	}
	if jerr := json.Unmarshal(out.Bytes(), &doc); jerr != nil {
		t.Fatalf("compare %s: %v; output %q: %v\n%s", strings.Join(args, " "), err, out.String(), jerr, errb.String())
	}
	rows := map[string]row{}
	for _, r := range doc.Rows {
		if r.Error != "" {
			logText, _ := os.ReadFile(r.Log)
			t.Fatalf("%s %s: %s\n%s", r.Library, r.Variant, r.Error, tail(string(logText), 20))
		}
		rows[r.Library+" "+r.Variant] = r
	}
	if err != nil {
		t.Fatalf("compare %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return rows
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestClientsCompare runs the comparison on a short profile and checks the
// structure each client's traffic must have, exactly: boto3 with a new
// client per object opens a connection and does a TLS handshake per object;
// one reused client, one connection; the parallel variant at most its pool,
// in the model's time (±20%); google-cloud-storage above its 8 MiB
// threshold uploads in two requests, a resumable initiation and the data.
func TestClientsCompare(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	_, objbench := compareEnv(t)
	const n, workers = 20, 10

	rows := runCompare(t, objbench, "cross-region", "--only", "^python-boto3 ", "--objects", "20", "--ops", "put")
	for _, tc := range []struct {
		name             string
		conns, handshake int
	}{
		{"python-boto3 naive", n, n},
		{"python-boto3 reused", 1, 1},
	} {
		e := rows[tc.name].Explain
		if e.Objects != n || e.Requests != n {
			t.Errorf("%s: %d objects in %d requests, want %d in %d", tc.name, e.Objects, e.Requests, n, n)
		}
		if e.Connections != tc.conns || e.TLSHandshakes != tc.handshake {
			t.Errorf("%s: %d connections, %d TLS handshakes, want %d and %d\n%s", tc.name, e.Connections, e.TLSHandshakes, tc.conns, tc.handshake, connsText(rows[tc.name]))
		}
		// The extra round trip of 100-continue: the pinned boto3 sends every
		// PutObject with Expect: 100-continue.
		if e.ExpectContinue != n {
			t.Errorf("%s: %d of %d uploads sent Expect: 100-continue, want all", tc.name, e.ExpectContinue, n)
		}
	}

	// The parallel variant: at most one connection per worker, and the
	// model's time: the handshake (TCP 1, TLS 1.3 1), then N/workers
	// requests on each connection, each 1 round trip plus 1 when it waits
	// for 100 Continue; plus the same program's time with no round trip
	// (profile local with TLS: its own CPU). Only the time has a tolerance.
	// Timed at 200 ms, where the program's CPU (and the machine's load) is
	// a smaller part of it than at 80 ms.
	par := rows["python-boto3 parallel"]
	if e := par.Explain; e.Objects != n || e.Connections < 1 || e.Connections > workers || e.TLSHandshakes != e.Connections {
		t.Errorf("parallel: %d objects, %d connections, %d TLS handshakes; want %d, 1 to %d, one handshake each\n%s",
			e.Objects, e.Connections, e.TLSHandshakes, n, workers, connsText(par))
	}
	var got, want float64
	for range 3 {
		par = runCompare(t, objbench, "intercontinental", "--only", "^python-boto3 parallel", "--objects", "20", "--ops", "put")["python-boto3 parallel"]
		base := runCompare(t, objbench, "local", "--tls", "--only", "^python-boto3 parallel", "--objects", "20", "--ops", "put")["python-boto3 parallel"]
		expect := float64(par.Explain.ExpectContinue) / float64(n)
		rtts := 2 + math.Ceil(float64(n)/workers)*(1+expect)
		rtt := par.Explain.RTTms / 1000
		got, want = par.UploadS, rtts*rtt+base.UploadS
		t.Logf("boto3 parallel: %d uploads in %.3f s; model %.1f round trips x %.0f ms + %.3f s without round trips = %.3f s",
			n, got, rtts, rtt*1000, base.UploadS, want)
		if math.Abs(got-want) <= 0.2*want {
			break
		}
	}
	if math.Abs(got-want) > 0.2*want {
		t.Errorf("boto3 parallel: %d uploads in %.3f s, want %.3f s ±20%%", n, got, want)
	}

	// google-cloud-storage: one 9 MiB object, above its 8 MiB threshold for
	// a single (multipart) request: a resumable upload, an initiation and
	// one data request. Beside it, the client's own background GetBucket
	// (its bucket-metadata cache, since the 3.x releases), once per client.
	gcs := runCompare(t, objbench, "same-region", "--only", "^python-gcs reused", "--objects", "1", "--size", "9MiB", "--ops", "put")["python-gcs reused"]
	ops := gcs.Explain.Operations
	upload := gcs.Explain.Requests - ops["GetBucket"]
	if gcs.Explain.Objects != 1 || upload != 2 || ops["ResumableInitiate"] != 1 || ops["ResumableChunk (final)"] != 1 || ops["GetBucket"] > 1 {
		t.Errorf("google-cloud-storage 9 MiB upload: %d objects, %d requests %v; want 1 object in 2 requests, ResumableInitiate and ResumableChunk (final), and at most one GetBucket",
			gcs.Explain.Objects, gcs.Explain.Requests, ops)
	}
}

// TestClientsWhatIf checks explain's what-if model by running the fix:
// for every library, the saving it predicts from the naive variant's
// timeline for one kept client, and from the reused variant's for 10
// requests in parallel, is within 15% of the saving measured by running
// the reused and parallel variants on the same profile (cross-region, 20
// objects of 1 KiB up then down: savings of 3 to 8 s). Measured on the
// storage span (first connection to last answer): start-up and exit, which
// the fix does not change, vary by up to a second run to run on this
// 2-core machine under the other tests' load, and the span itself by up to
// 0.6 s in a disturbed run (a third of a 3 s saving); each program's best
// of 3 runs (--repeat 3: the least span, the run least disturbed) keeps the
// spread to a few per cent (docs/clients.md's table: every prediction within
// 7%; single runs under load: up to 17%). The rows are those of
// examples/clients/compare --repeat 3 (docs/clients.md's table). About 7
// minutes on 2 cores; Azure only with azurite-blob installed.
func TestClientsWhatIf(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	_, objbench := compareEnv(t)
	rows := runCompare(t, objbench, "cross-region", "--repeat", "3")
	checked := map[string]bool{}
	for _, lib := range []string{"python-boto3", "python-gcs", "python-azure", "node-s3", "go-awssdk"} {
		for _, variant := range []string{"naive", "reused"} {
			r, ok := rows[lib+" "+variant]
			if !ok {
				t.Logf("%s %s: not run (left out by compare)", lib, variant)
				continue
			}
			if r.Fix == nil {
				t.Errorf("%s %s: no what-if check (the next variant or the scenario is missing)", lib, variant)
				continue
			}
			f := r.Fix
			t.Logf("%-12s %-6s -> %-8s saves %.2f s measured, %.2f s predicted (%s), %+.0f%%", lib, variant, f.To, f.Measured, f.Predicted, f.Scenario,
				100*(f.Predicted-f.Measured)/f.Measured)
			if f.Measured <= 0 || math.Abs(f.Predicted-f.Measured) > 0.15*f.Measured {
				t.Errorf("%s %s -> %s: predicted saving %.2f s, measured %.2f s: want within 15%%", lib, variant, f.To, f.Predicted, f.Measured)
			}
			checked[lib] = true
		}
	}
	if !checked["python-boto3"] || !checked["go-awssdk"] {
		t.Errorf("checked %v: want every installed library", checked)
	}
}
