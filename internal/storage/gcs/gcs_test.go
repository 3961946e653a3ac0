package gcs

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

func open(t *testing.T, bucket, endpoint string, upload storage.UploadStyle, tr *nettrace.Transport) *Backend {
	t.Helper()
	if tr == nil {
		tr = nettrace.NewTransport(nettrace.Config{})
	}
	b, err := New(context.Background(), storage.Target{Scheme: "gs", Bucket: bucket},
		storage.Options{Endpoint: endpoint, HTTPClient: tr.Client(), MaxAttempts: 1, Upload: upload})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConformanceEmbedded(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"gcs"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, up := range []storage.UploadStyle{storage.UploadAuto, storage.UploadResumable} {
		t.Run(string(up), func(t *testing.T) {
			storagetest.Run(t, func(t *testing.T) storage.Backend { return open(t, lab.Bucket, l.Endpoint("gcs"), up, nil) })
		})
	}
}

// TestConformanceFakeGCSServer runs against the standalone fake-gcs-server
// that scripts/services starts.
func TestConformanceFakeGCSServer(t *testing.T) {
	ep := os.Getenv("OBJBENCH_TEST_GCS_ENDPOINT")
	if ep == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("OBJBENCH_TEST_GCS_ENDPOINT not set on CI: run the tests through scripts/test")
		}
		t.Skip("fake-gcs-server not running: start it with scripts/services up")
	}
	b := open(t, "objbench-conformance", ep, storage.UploadAuto, nil)
	if ok, err := b.BucketExists(context.Background()); err != nil {
		t.Fatal(err)
	} else if !ok {
		if err := b.CreateBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	storagetest.Run(t, func(t *testing.T) storage.Backend {
		return open(t, "objbench-conformance", ep, storage.UploadAuto, nil)
	})
}

// TestUploadStyleRequests: single and auto send a small object in one
// request, resumable in two (session, then data).
func TestUploadStyleRequests(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"gcs"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		up   storage.UploadStyle
		want int
	}{{storage.UploadAuto, 1}, {storage.UploadSingle, 1}, {storage.UploadResumable, 2}}
	for _, tc := range tests {
		t.Run(string(tc.up), func(t *testing.T) {
			tr := nettrace.NewTransport(nettrace.Config{})
			b := open(t, lab.Bucket, l.Endpoint("gcs"), tc.up, tr)
			ctx, op := nettrace.Begin(context.Background())
			data := make([]byte, 7<<10)
			if err := b.Put(ctx, "styles/"+string(tc.up), bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
			if s := op.Finish(); s.Requests != tc.want {
				t.Errorf("%s: %d requests, want %d", tc.up, s.Requests, tc.want)
			}
			var buf bytes.Buffer
			if n, err := b.Get(context.Background(), "styles/"+string(tc.up), &buf); err != nil || n != int64(len(data)) {
				t.Errorf("read back %d bytes, %v", n, err)
			}
			_ = b.Delete(context.Background(), "styles/"+string(tc.up))
		})
	}
}

func TestMissingBucket(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"gcs"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	b := open(t, "no-such-bucket", l.Endpoint("gcs"), storage.UploadAuto, nil)
	ok, err := b.BucketExists(context.Background())
	if ok || err != nil {
		t.Errorf("exists %v err %v", ok, err)
	}
	err = b.Put(context.Background(), "k", bytes.NewReader([]byte("x")), 1)
	if c := storage.Classify(err); c != storage.ClassNotFound {
		t.Errorf("put into a missing bucket: class %q (%v)", c, err)
	}
}
