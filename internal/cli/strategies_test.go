package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

type stratDoc struct {
	Schema     string `json:"schema"`
	Strategies []struct {
		Strategy    string             `json:"strategy"`
		Op          string             `json:"op"`
		Objects     int                `json:"objects"`
		WallS       float64            `json:"wall_s"`
		Connections int64              `json:"connections"`
		TLS         int64              `json:"tls_handshakes"`
		ReqPerObj   float64            `json:"requests_per_object"`
		RTTms       float64            `json:"rtt_ms"`
		RTTs        map[string]float64 `json:"rtts"`
		Speedup     float64            `json:"speedup"`
		Available   bool               `json:"available"`
		Reason      string             `json:"reason"`
	} `json:"strategies"`
	Summary []string `json:"summary"`
}

func runStrategiesJSON(t *testing.T, args ...string) stratDoc {
	t.Helper()
	code, out, errOut := runCLI(t, context.Background(), append([]string{"strategies", "--json", "-q"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d stratDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if d.Schema != "objbench/v1" || len(d.Strategies) == 0 {
		t.Fatalf("schema %q, %d rows", d.Schema, len(d.Strategies))
	}
	return d
}

// TestStrategiesRoundTripModel: strategies on the lab's GCS endpoint at
// cross-region with TLS, 50 empty uploads. Each strategy's wall time and
// per-phase round trips against the link model.
func TestStrategiesRoundTripModel(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if testing.Short() {
		t.Skip("40 s of emulated round trips")
	}
	// Round trips per strategy for 50 objects, TLS 1.3 (TCP 1 + TLS 1 + request 1 per new connection):
	// sdk-default: a resumable session on two fresh connections, 6 per object;
	// single-request: 3 per object; reused-connection: 3 then 1 each;
	// parallel 16: 3, then up to 3 more on each worker's connection; http2: 3
	// for the connection and the first requests, then 3 more of slow start:
	// the new connection's window carries 10 segments (14 KB) and 50 requests
	// of about 2 KB each need 14, 28, 56 KB, as on a real network. So wait
	// averages about 2.5 round trips per object.
	type model struct {
		wall                  float64
		connect, tls, waitRTT float64
	}
	want := map[string]model{
		"sdk-default":       {300, 2, 2, 2},
		"single-request":    {150, 1, 1, 1},
		"reused-connection": {52, 0.02, 0.02, 1},
		"parallel":          {6, 0.32, 0.32, 1},
		"http2":             {6, 0.02, 0.02, 2.5},
	}
	// Not parallel: a timing test measures alone. A stall of a second or
	// two in one run (seen in CI after the race tests: one strategy's
	// wait at 2.48 or 1.33 round trips an object where every other run
	// reads 2.04 to 2.08 and 1.03 to 1.04) is measured once more; a model
	// that is wrong fails both runs.
	var problems []string
	for attempt := 1; attempt <= 2; attempt++ {
		problems = problems[:0]
		errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
		d := runStrategiesJSON(t, "lab:cross-region", "--lab-api", "gcs", "--tls", "--size", "0", "--objects", "50", "--ops", "put")
		walls := map[string]float64{}
		for _, r := range d.Strategies {
			m, ok := want[r.Strategy]
			if !ok || r.Op != "put" {
				t.Fatalf("unexpected row %s %s", r.Strategy, r.Op)
			}
			if !r.Available {
				t.Fatalf("%s unavailable: %s", r.Strategy, r.Reason)
			}
			walls[r.Strategy] = r.WallS
			rtt := r.RTTms / 1000
			// ±20%, and never less than one round trip. Above, the short
			// strategies (parallel's and http2's 6 round trips) get 3 more:
			// they carry the CPU time of 50 TLS requests on a 2-core machine,
			// which the model does not count, and slow start's rounds, which
			// on a slower machine are more (the lab's unlimited wire is as
			// fast as its CPU: a clean CI run measured http2 at 8.5, parallel
			// once read 10.5 here under load).
			tolWall := math.Max(0.2*m.wall, 1)
			over := tolWall
			if m.wall <= 6 {
				over = 3
			}
			if got := r.WallS / rtt; got < m.wall-tolWall || got > m.wall+over {
				errorf("%s: %.1f round trips of wall time, model %.0f (-%.1f/+%.1f)", r.Strategy, got, m.wall, tolWall, over)
			}
			for phase, w := range map[string]float64{"connect": m.connect, "tls": m.tls, "wait": m.waitRTT} {
				tol := 0.3
				if phase == "wait" && r.Strategy == "http2" {
					// Requests wait for slow start's rounds: 1 to 4 round trips.
					tol = 0.8
				}
				if got := r.RTTs[phase]; math.Abs(got-w) > tol {
					errorf("%s %s: %.2f round trips per object, model %.2f (±%.1f)", r.Strategy, phase, got, w, tol)
				}
			}
		}
		order := []string{"sdk-default", "single-request", "reused-connection", "parallel"}
		for i := 1; i < len(order); i++ {
			if walls[order[i-1]] <= walls[order[i]] {
				errorf("%s (%.2f s) not slower than %s (%.2f s)", order[i-1], walls[order[i-1]], order[i], walls[order[i]])
			}
		}
		// Both take about 6 round trips now that slow start is real: http2 may
		// not lose by much (by a third at most: the 3 round trips above).
		if walls["parallel"] < 0.66*walls["http2"] {
			errorf("parallel %.2f s faster than http2 %.2f s", walls["parallel"], walls["http2"])
		}
		if walls["sdk-default"] < 10*walls["http2"] {
			errorf("http2 %.2f s is not 10x faster than sdk-default %.2f s", walls["http2"], walls["sdk-default"])
		}
		// The saving sentence names the fastest: http2 or parallel, which real
		// slow start leaves within a round trip or two of each other.
		if len(d.Summary) != 1 || !strings.Contains(d.Summary[0], "http2") && !strings.Contains(d.Summary[0], "parallel") {
			errorf("summary %q", d.Summary)
		}
		if len(problems) == 0 {
			return
		}
		t.Logf("run %d off the model: %s", attempt, strings.Join(problems, "; "))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestStrategiesS3DefaultIsOneRequest: S3's SDK default is one request per
// object, so sdk-default costs about what single-request does.
func TestStrategiesS3DefaultIsOneRequest(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	// Not parallel: a timing test measures alone.
	d := runStrategiesJSON(t, "lab", "--lab-api", "s3", "--rtt", "30ms", "--size", "0", "--objects", "10", "--ops", "put")
	var sdk, single float64
	for _, r := range d.Strategies {
		switch r.Strategy {
		case "sdk-default":
			sdk = r.WallS
			if r.ReqPerObj != 1 || r.Connections != 10 {
				t.Errorf("sdk-default: %v requests per object, %d connections", r.ReqPerObj, r.Connections)
			}
		case "single-request":
			single = r.WallS
		}
	}
	if math.Abs(sdk-single) > 0.15*single {
		t.Errorf("sdk-default %.2f s, single-request %.2f s: want about equal", sdk, single)
	}
}

// TestStrategiesOnTestServers runs the command against MinIO, fake-gcs-server
// and Azurite; none speaks h2c, and the http2 row says so instead of failing.
func TestStrategiesOnTestServers(t *testing.T) {
	minioEP := minio(t)
	gcsEP, azCS := os.Getenv("OBJBENCH_TEST_GCS_ENDPOINT"), os.Getenv("OBJBENCH_TEST_AZURE_CONNECTION_STRING")
	if gcsEP == "" || azCS == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("test services not up on CI")
		}
		t.Skip("fake-gcs-server or Azurite not running: scripts/services up")
	}
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", azCS)
	azEP := ""
	for _, part := range strings.Split(azCS, ";") {
		if v, ok := strings.CutPrefix(part, "BlobEndpoint="); ok {
			azEP = v
		}
	}
	tests := []struct{ name, target, endpoint string }{
		{"minio", "s3://" + randomBucket(t), minioEP},
		{"fake-gcs-server", "gs://objbench-strategies", gcsEP},
		{"azurite", "az://devstoreaccount1/strategies", azEP},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := runStrategiesJSON(t, tc.target, "--endpoint", tc.endpoint, "--create-bucket", "--size", "0,1KiB", "--objects", "5", "--parallel", "2")
			if len(d.Strategies) != 20 {
				t.Fatalf("%d rows, want 5 strategies x 2 ops x 2 sizes", len(d.Strategies))
			}
			for _, r := range d.Strategies {
				if r.Strategy == "http2" {
					if !r.Available && !strings.Contains(r.Reason, "HTTP/2 not offered") {
						t.Errorf("http2 %s: reason %q", r.Op, r.Reason)
					}
					continue
				}
				if !r.Available {
					t.Errorf("%s %s unavailable: %s", r.Strategy, r.Op, r.Reason)
				}
			}
		})
	}
}

func TestIdleTimeoutOnLab(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	// Not parallel: a timing test measures alone.
	code, out, errOut := runCLI(t, context.Background(), "idle-timeout", "lab", "--idle-timeout", "3s", "--max", "8s", "--json", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d struct {
		Found    bool    `json:"found"`
		TimeoutS float64 `json:"idle_timeout_s"`
		Probes   []struct {
			IdleS  float64 `json:"idle_s"`
			Reused bool    `json:"reused"`
		} `json:"probes"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if !d.Found || math.Abs(d.TimeoutS-3) > 1 {
		t.Errorf("found %v, %.2f s, want 3 s ± 1 s", d.Found, d.TimeoutS)
	}
	for _, p := range d.Probes {
		if p.IdleS < 2.5 && !p.Reused || p.IdleS > 3.5 && p.Reused {
			t.Errorf("probe at %.2f s: reused %v, inconsistent with a 3 s timeout", p.IdleS, p.Reused)
		}
	}
}
