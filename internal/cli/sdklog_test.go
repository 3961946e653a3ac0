package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSDKLogRouted: with no AWS credentials and an instance metadata
// service (a fake on loopback) that refuses IMDSv2 tokens, aws-sdk-go-v2
// logs "falling back to IMDSv1" itself. That line is objbench's to route:
// with --verbose it goes to objbench's stderr; without, nothing from the
// SDK reaches stderr (the process's own, which the SDK writes to by
// default, included), only objbench's error. Not parallel: it sets the
// environment and borrows os.Stderr.
func TestSDKLogRouted(t *testing.T) {
	var imdsHits atomic.Int32
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		imdsHits.Add(1)
		http.NotFound(w, r) // 404 to the token PUT: the SDK falls back to IMDSv1
	}))
	defer imds.Close()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL, "AWS_EC2_METADATA_DISABLED": "false",
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "",
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"), "AWS_CONFIG_FILE": filepath.Join(dir, "config"),
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "", "AWS_REGION": "us-east-1",
	} {
		t.Setenv(k, v)
	}
	for _, verbose := range []bool{false, true} {
		args := []string{"--db", filepath.Join(dir, "results.db"), "run", "s3://objbench-no-such-bucket", "--endpoint", "http://127.0.0.1:1",
			"--timeout", "5s", "--no-save", "-q"}
		if verbose {
			args = append([]string{"--verbose"}, args...)
		}
		imdsHits.Store(0)
		code, stderr, processStderr := withProcessStderr(t, func(stderr io.Writer) int {
			return Main(context.Background(), args, io.Discard, stderr)
		})
		if code != ExitFailure || !strings.HasPrefix(stderr, "objbench: ") {
			t.Errorf("verbose %v: exit %d, stderr %q; want objbench's own error, exit %d", verbose, code, stderr, ExitFailure)
		}
		if imdsHits.Load() == 0 {
			t.Fatalf("verbose %v: the fake IMDS was never asked: the test proves nothing", verbose)
		}
		if processStderr != "" {
			t.Errorf("verbose %v: the SDK wrote to the process's stderr: %q", verbose, processStderr)
		}
		sdk := strings.Contains(stderr, "IMDSv1")
		if sdk != verbose {
			t.Errorf("verbose %v: the SDK's IMDSv1 line on objbench's stderr: %v\n%s", verbose, sdk, stderr)
		}
	}
}

// withProcessStderr runs f with os.Stderr redirected to a pipe, and gives
// f's result, what f wrote to its writer, and what reached os.Stderr.
func withProcessStderr(t *testing.T, f func(stderr io.Writer) int) (int, string, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	var buf bytes.Buffer
	code := f(&buf)
	os.Stderr = saved
	w.Close()
	return code, buf.String(), <-got
}
