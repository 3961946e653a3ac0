package miniogo

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
)

// The client's own cost per request against the test MinIO, traced as the
// runner traces it: go test ./internal/storage/miniogo -run - -bench . -benchmem
// -cpuprofile cpu.out (with the services' environment).
func BenchmarkGet1KiB(b *testing.B) { benchOp(b, "get", 1024) }

// BenchmarkPut1KiB is one 1 KiB PutObject per operation.
func BenchmarkPut1KiB(b *testing.B) { benchOp(b, "put", 1024) }

func benchOp(b *testing.B, op string, size int) {
	ep, creds := minioServer(b)
	ctx := context.Background()
	tr := nettrace.NewTransport(nettrace.Config{})
	defer tr.CloseIdleConnections()
	bucket := randomBucket()
	be, err := New(ctx, storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: ep, Region: "us-east-1", Credentials: creds, HTTPClient: tr.Client(), MaxAttempts: 1})
	if err != nil {
		b.Fatal(err)
	}
	if err := be.CreateBucket(ctx); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, size)
	const key = "bench/obj"
	if err := be.Put(ctx, key, bytes.NewReader(data), int64(size)); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = be.Delete(ctx, key)
		_ = be.client.RemoveBucket(ctx, bucket)
	}()
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
