package s3

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

// The client's own cost per request against the test MinIO, traced as the
// runner traces it: go test ./internal/storage/s3 -run - -bench . -benchmem
// -cpuprofile cpu.out (with the services' environment).
func BenchmarkGet1KiB(b *testing.B) { benchOp(b, "get", 1024) }

// BenchmarkPut1KiB is one 1 KiB PutObject per operation.
func BenchmarkPut1KiB(b *testing.B) { benchOp(b, "put", 1024) }

func benchOp(b *testing.B, op string, size int) {
	ep, creds := storagetest.MinIO(b)
	ctx := context.Background()
	tr := nettrace.NewTransport(nettrace.Config{})
	defer tr.CloseIdleConnections()
	bucket := storagetest.RandomBucket()
	be, err := New(ctx, storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: ep, Region: "us-east-1", Credentials: creds, HTTPClient: tr.Client(), MaxAttempts: 1})
	if err != nil {
		b.Fatal(err)
	}
	if err := be.CreateBucket(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _, _ = be.client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket}) }()
	storagetest.BenchOp(b, be, op, size)
}
