package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// haveAzurite reports whether the lab can serve Azure; on CI it must.
func haveAzurite(t *testing.T) bool {
	t.Helper()
	if _, err := exec.LookPath("azurite-blob"); err == nil {
		return true
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("azurite-blob not on PATH on CI: run the tests through scripts/test")
	}
	return false
}

type provResult struct {
	Workload      string  `json:"workload"`
	Op            string  `json:"op"`
	SizeBytes     int64   `json:"size_bytes"`
	Count         int64   `json:"count"`
	Errors        int64   `json:"errors"`
	RequestsPerOp float64 `json:"requests_per_op"`
}

// TestRunLabAPIs runs the same workloads on the lab's three APIs: the same
// JSON shape, with each upload style's request count.
func TestRunLabAPIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		api, upload string
		putReqs     float64 // requests per 256 KiB upload
	}{
		{"s3", "single", 1},
		{"gcs", "single", 1},
		{"gcs", "resumable", 2},
		{"azure", "single", 1},
		{"azure", "multipart", 5}, // 4 blocks of 64 KiB and a commit
	}
	for _, tc := range tests {
		t.Run(tc.api+"/"+tc.upload, func(t *testing.T) {
			t.Parallel()
			if tc.api == "azure" && !haveAzurite(t) {
				t.Skip("azurite-blob not on PATH")
			}
			code, out, errOut := runCLI(t, context.Background(), "run", "--lab-api", tc.api, "--upload", tc.upload,
				"--part-size", "64KiB", "--json", "-q", "--workload", "latency,throughput", "--gets", "20",
				"--op-sizes", "0", "--op-count", "2", "--sizes", "256KiB", "--size-count", "2")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var d struct {
				Target  struct{ Provider string }
				Lab     struct{ API string }
				Results []provResult
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			if d.Lab.API != tc.api || len(d.Results) != 6 {
				t.Fatalf("lab %q, %d results", d.Lab.API, len(d.Results))
			}
			for _, r := range d.Results {
				if r.Errors != 0 || r.Count == 0 {
					t.Errorf("%s %s %d: count %d errors %d", r.Workload, r.Op, r.SizeBytes, r.Count, r.Errors)
				}
				if r.Workload == "throughput" && r.Op == "put" && r.RequestsPerOp != tc.putReqs {
					t.Errorf("put 256KiB with --upload %s: %v requests per object, want %v", tc.upload, r.RequestsPerOp, tc.putReqs)
				}
			}
		})
	}
}

func TestProviderBadInput(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"gcs emulator not running", nil, []string{"run", "gs://bucket", "--endpoint", "http://127.0.0.1:1"}, 1, "cannot connect"},
		{"azure malformed connection string", map[string]string{"AZURE_STORAGE_CONNECTION_STRING": "not=a;connection string"},
			[]string{"run", "az://acct/container"}, 1, "malformed"},
		{"azure key not base64", map[string]string{"AZURE_STORAGE_KEY": "%%%"}, []string{"run", "az://acct/container", "--endpoint", "http://127.0.0.1:1/acct"}, 1, "not a valid account key"},
		{"multipart on gcs", nil, []string{"run", "gs://bucket", "--upload", "multipart"}, 2, "S3 and Azure"},
		{"resumable on s3", nil, []string{"run", "s3://bucket", "--upload", "resumable"}, 2, "GCS upload style"},
		{"unknown upload", nil, []string{"run", "--upload", "carrier-pigeon"}, 2, "unknown upload style"},
		{"bad part size", nil, []string{"run", "--part-size", "0"}, 2, "--part-size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, _, errOut := runCLI(t, context.Background(), tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("exit %d stderr %q, want exit %d and one line with %q", code, errOut, tc.code, tc.want)
			}
			for _, v := range tc.env {
				if strings.Contains(errOut, v) {
					t.Errorf("stderr repeats the secret %q", v)
				}
			}
		})
	}
}

func TestRunAzuriteMissingContainer(t *testing.T) {
	cs := os.Getenv("OBJBENCH_TEST_AZURE_CONNECTION_STRING")
	if cs == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("OBJBENCH_TEST_AZURE_CONNECTION_STRING not set on CI")
		}
		t.Skip("Azurite not running: scripts/services up")
	}
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", cs)
	code, _, errOut := runCLI(t, context.Background(), "run", "az://devstoreaccount1/no-such-container-here")
	if code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestRunFakeGCSServer(t *testing.T) {
	ep := os.Getenv("OBJBENCH_TEST_GCS_ENDPOINT")
	if ep == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("OBJBENCH_TEST_GCS_ENDPOINT not set on CI")
		}
		t.Skip("fake-gcs-server not running: scripts/services up")
	}
	code, out, errOut := runCLI(t, context.Background(), "run", "gs://objbench-cli-gcs", "--endpoint", ep, "--create-bucket",
		"--json", "-q", "--workload", "latency", "--gets", "20", "--op-sizes", "1KiB", "--op-count", "2", "--upload", "resumable")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d struct{ Results []provResult }
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Results {
		if r.Errors != 0 || (r.Op == "put" && r.RequestsPerOp != 2) {
			t.Errorf("%s: errors %d requests/op %v", r.Op, r.Errors, r.RequestsPerOp)
		}
	}
}
