package storagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"testing"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
)

// MinIO returns the test MinIO's endpoint and credentials, from the
// environment scripts/services writes. It skips when the services are not
// up, except on CI, where a skip would hide a failure.
func MinIO(t testing.TB) (endpoint string, creds *storage.StaticCredentials) {
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

// RandomBucket is a fresh bucket name for one test.
func RandomBucket() string {
	p := make([]byte, 4)
	_, _ = rand.Read(p)
	return "objbench-test-" + hex.EncodeToString(p)
}

// BenchOp measures the client's own cost per request: one object of size
// bytes, then op ("get" or "put") on it, traced as the runner traces it,
// four goroutines per CPU. The object is deleted after; be's bucket must
// exist.
func BenchOp(b *testing.B, be storage.Backend, op string, size int) {
	ctx := context.Background()
	data := make([]byte, size)
	const key = "bench/obj"
	if err := be.Put(ctx, key, bytes.NewReader(data), int64(size)); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = be.Delete(ctx, key) }()
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			opCtx, o := nettrace.Begin(ctx)
			var err error
			if op == "get" {
				_, err = be.Get(opCtx, key, io.Discard)
			} else {
				err = be.Put(opCtx, key, bytes.NewReader(data), int64(size))
			}
			o.Finish()
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}
