package s3

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

// minio returns the test MinIO's settings; it skips when the services are
// not up, except on CI, where a skip would hide a failure.
func minio(t *testing.T) (endpoint string, creds *storage.StaticCredentials) {
	t.Helper()
	ep, ak, sk := os.Getenv("OBJBENCH_TEST_S3_ENDPOINT"), os.Getenv("OBJBENCH_TEST_S3_ACCESS_KEY"), os.Getenv("OBJBENCH_TEST_S3_SECRET_KEY")
	if ep == "" || ak == "" || sk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("OBJBENCH_TEST_S3_* not set on CI: run the tests through scripts/test")
		}
		t.Skip("MinIO not running: start it with scripts/services up")
	}
	return ep, &storage.StaticCredentials{AccessKeyID: ak, SecretAccessKey: sk}
}

func open(t *testing.T, bucket, endpoint string, creds *storage.StaticCredentials) *Backend {
	t.Helper()
	b, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: endpoint, Region: "us-east-1", Credentials: creds, HTTPClient: &http.Client{}, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func randomBucket() string {
	p := make([]byte, 4)
	_, _ = rand.Read(p)
	return "objbench-test-" + hex.EncodeToString(p)
}

func TestConformanceMinIO(t *testing.T) {
	ep, creds := minio(t)
	bucket := randomBucket()
	b := open(t, bucket, ep, creds)
	if err := b.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	storagetest.Run(t, func(t *testing.T) storage.Backend { return open(t, bucket, ep, creds) })
}

func TestConformanceEmbedded(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	storagetest.Run(t, func(t *testing.T) storage.Backend {
		return open(t, lab.Bucket, l.Endpoint("s3"), l.Credentials())
	})
}

func TestBadInputMinIO(t *testing.T) {
	ep, creds := minio(t)
	ctx := context.Background()
	wrong := &storage.StaticCredentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: "not-the-secret"}
	tests := []struct {
		name  string
		b     *Backend
		class storage.ErrorClass
	}{
		{"wrong secret", open(t, randomBucket(), ep, wrong), storage.ClassAccessDenied},
		{"refused", open(t, randomBucket(), "http://127.0.0.1:1", creds), storage.ClassReset},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.BucketExists(ctx)
			if c := storage.Classify(err); c != tc.class {
				t.Errorf("class %q (%v), want %q", c, err, tc.class)
			}
			if err != nil && strings.Contains(err.Error(), creds.SecretAccessKey) {
				t.Error("error contains the secret key")
			}
		})
	}
	missing := open(t, randomBucket(), ep, creds)
	if ok, err := missing.BucketExists(ctx); ok || err != nil {
		t.Errorf("missing bucket: exists %v err %v", ok, err)
	}
	if err := missing.Put(ctx, "k", strings.NewReader("x"), 1); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("put into a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
}

func TestBadEndpoint(t *testing.T) {
	_, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: "abc"},
		storage.Options{Endpoint: "ftp://x", HTTPClient: &http.Client{}})
	if err == nil || !strings.Contains(err.Error(), "bad endpoint") {
		t.Errorf("err %v", err)
	}
}

func TestCredentialsRedacted(t *testing.T) {
	c := storage.StaticCredentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "s3cr3t"}
	for _, s := range []string{c.String(), c.GoString()} {
		if strings.Contains(s, "s3cr3t") || strings.Contains(s, "AKIDEXAMPLE") {
			t.Errorf("credentials print as %q", s)
		}
	}
}
