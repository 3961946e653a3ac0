package miniogo

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

func open(t testing.TB, bucket, endpoint string, creds *storage.StaticCredentials, upload storage.UploadStyle) *Backend {
	t.Helper()
	b, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: endpoint, Region: "us-east-1", Credentials: creds, HTTPClient: &http.Client{}, MaxAttempts: 1,
			Upload: upload, PartSize: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testBucket(t *testing.T, ep string, creds *storage.StaticCredentials) string {
	t.Helper()
	bucket := storagetest.RandomBucket()
	b := open(t, bucket, ep, creds, "")
	if err := b.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.client.RemoveBucket(context.Background(), bucket); err != nil {
			t.Errorf("delete bucket %s: %v", bucket, err)
		}
	})
	return bucket
}

func TestConformanceMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	storagetest.Run(t, func(t *testing.T) storage.Backend { return open(t, bucket, ep, creds, "") })
}

func TestConformanceEmbedded(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	storagetest.Run(t, func(t *testing.T) storage.Backend {
		return open(t, lab.Bucket, l.Endpoint("s3"), l.Credentials("s3"), "")
	})
}

// Every upload style stores the same bytes, including an empty object and
// one of several parts.
func TestUploadStylesMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	ctx := context.Background()
	for _, style := range []storage.UploadStyle{storage.UploadAuto, storage.UploadSingle, storage.UploadMultipart} {
		for _, size := range []int{0, 1024, 11 << 20} {
			b := open(t, bucket, ep, creds, style)
			key := "styles/" + string(style) + "/" + strings.Repeat("x", size%7)
			data := make([]byte, size)
			_, _ = rand.Read(data)
			if err := b.Put(ctx, key, bytes.NewReader(data), int64(size)); err != nil {
				t.Fatalf("%s %d: %v", style, size, err)
			}
			var got bytes.Buffer
			if n, err := b.Get(ctx, key, &got); err != nil || n != int64(size) || !bytes.Equal(got.Bytes(), data) {
				t.Errorf("%s %d: read back %d bytes, equal %v, err %v", style, size, n, bytes.Equal(got.Bytes(), data), err)
			}
			if err := b.Delete(ctx, key); err != nil {
				t.Error(err)
			}
		}
	}
	if err := open(t, bucket, ep, creds, storage.UploadResumable).Put(ctx, "k", strings.NewReader("x"), 1); storage.Classify(err) != storage.ClassClient {
		t.Errorf("resumable upload on S3: class %q (%v), want a client error", storage.Classify(err), err)
	}
}

func TestBadInputMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	ctx := context.Background()
	wrong := &storage.StaticCredentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: "not-the-secret"}
	tests := []struct {
		name  string
		b     *Backend
		class storage.ErrorClass
	}{
		{"wrong secret", open(t, storagetest.RandomBucket(), ep, wrong, ""), storage.ClassAccessDenied},
		{"refused", open(t, storagetest.RandomBucket(), "http://127.0.0.1:1", creds, ""), storage.ClassReset},
		{"wrong key id", open(t, storagetest.RandomBucket(), ep, &storage.StaticCredentials{AccessKeyID: "nobody", SecretAccessKey: "x"}, ""), storage.ClassAccessDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.BucketExists(ctx)
			if c := storage.Classify(err); c != tc.class {
				t.Errorf("class %q (%v), want %q", c, err, tc.class)
			}
			if err != nil && (strings.Contains(err.Error(), creds.SecretAccessKey) || strings.Contains(err.Error(), wrong.SecretAccessKey)) {
				t.Error("error contains the secret key")
			}
		})
	}
	missing := open(t, storagetest.RandomBucket(), ep, creds, "")
	if ok, err := missing.BucketExists(ctx); ok || err != nil {
		t.Errorf("missing bucket: exists %v err %v", ok, err)
	}
	if err := missing.Put(ctx, "k", strings.NewReader("x"), 1); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("put into a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	if err := missing.Delete(ctx, "k"); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("delete in a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	if err := missing.List(ctx, "", func(storage.ObjectInfo) error { return nil }); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("list of a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	for _, ep := range []string{"ftp://x", "http://u:p@127.0.0.1:1", "http://127.0.0.1:1/path", "::"} {
		if _, err := New(ctx, storage.Target{Scheme: "s3", Bucket: "b"}, storage.Options{Endpoint: ep, HTTPClient: &http.Client{}}); err == nil {
			t.Errorf("endpoint %q accepted", ep)
		} else if strings.Contains(err.Error(), ":p@") {
			t.Errorf("endpoint error shows the password: %v", err)
		}
	}
}
