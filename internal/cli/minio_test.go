package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/storage/storagetest"
)

// minio returns the test MinIO's endpoint (see storagetest.MinIO) and sets
// its keys in the environment (the AWS default chain reads them).
func minio(t *testing.T) string {
	t.Helper()
	ep, creds := storagetest.MinIO(t)
	t.Setenv("AWS_ACCESS_KEY_ID", creds.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", creds.SecretAccessKey)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return ep
}

func randomBucket(t *testing.T) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "objbench-cli-" + hex.EncodeToString(b)
}

func TestRunMinIOReuse(t *testing.T) {
	ep := minio(t)
	bucket := randomBucket(t)
	for _, tc := range []struct {
		conn                  string
		wantFirst, wantLater  float64
		minLater, connectZero bool
	}{
		{conn: "pooled", wantFirst: 0, wantLater: 0.95, minLater: true},
		{conn: "fresh", wantFirst: 0, wantLater: 0},
	} {
		t.Run(tc.conn, func(t *testing.T) {
			code, out, errOut := runCLI(t, context.Background(), "run", "s3://"+bucket, "--endpoint", ep, "--create-bucket",
				"--json", "--conn", tc.conn, "--workload", "latency", "--gets", "100", "--latency-concurrency", "2",
				"--op-sizes", "1KiB", "--op-count", "3", "-q")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			d := parseDoc(t, out)
			if d.Target.Endpoint != ep || d.Lab != nil {
				t.Errorf("target %+v lab %+v", d.Target, d.Lab)
			}
			for _, r := range d.Results {
				if r.Errors != 0 {
					t.Errorf("%s: %d errors", r.Op, r.Errors)
				}
				if r.First.Reused != tc.wantFirst {
					t.Errorf("%s: first reused %v, want %v", r.Op, r.First.Reused, tc.wantFirst)
				}
				if tc.minLater && r.Later.Reused < tc.wantLater || !tc.minLater && r.Later.Reused != tc.wantLater {
					t.Errorf("%s: later reused %v, want %v", r.Op, r.Later.Reused, tc.wantLater)
				}
				if tc.conn == "fresh" && r.Phases["connect"].P50 <= 0 {
					t.Errorf("%s: connect p50 %v with fresh connections", r.Op, r.Phases["connect"].P50)
				}
			}
		})
	}
	// The run cleaned up after itself: a second run into the same named prefix is allowed.
	code, _, errOut := runCLI(t, context.Background(), "run", "s3://"+bucket, "--endpoint", ep, "--prefix", "again",
		"--workload", "latency", "--gets", "5", "--op-sizes", "0", "--op-count", "1", "-q", "--json")
	if code != 0 {
		t.Fatalf("first run into prefix: exit %d %s", code, errOut)
	}
	code, _, errOut = runCLI(t, context.Background(), "run", "s3://"+bucket, "--endpoint", ep, "--prefix", "again",
		"--workload", "latency", "--gets", "5", "--op-sizes", "0", "--op-count", "1", "-q", "--json")
	if code != 0 {
		t.Fatalf("second run into the cleaned prefix: exit %d %s", code, errOut)
	}
}

func TestRunMinIOBadInput(t *testing.T) {
	ep := minio(t)
	tests := []struct {
		name  string
		setup func(t *testing.T)
		args  []string
		want  string
	}{
		{"missing bucket", nil, []string{"run", "s3://" + randomBucket(t), "--endpoint", ep}, "does not exist"},
		{"wrong secret", func(t *testing.T) { t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret-key") },
			[]string{"run", "s3://" + randomBucket(t), "--endpoint", ep}, "denied"},
		{"no credentials", func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", "")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "")
			t.Setenv("AWS_CONFIG_FILE", os.DevNull)
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
		}, []string{"run", "s3://" + randomBucket(t), "--endpoint", ep}, "credentials"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t)
			}
			code, _, errOut := runCLI(t, context.Background(), tc.args...)
			if code != 1 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("exit %d stderr %q, want exit 1 and one line with %q", code, errOut, tc.want)
			}
			if strings.Contains(errOut, os.Getenv("OBJBENCH_TEST_S3_SECRET_KEY")) {
				t.Error("stderr contains the secret key")
			}
		})
	}
}
