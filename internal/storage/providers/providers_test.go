package providers

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
	"github.com/objbench/objbench/internal/storage/s3"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := storage.Options{HTTPClient: &http.Client{}, Endpoint: "http://127.0.0.1:1", Region: "us-east-1",
		Credentials: &storage.StaticCredentials{AccessKeyID: "a", SecretAccessKey: "b"}}

	b, err := Open(ctx, storage.Target{Scheme: "mem", Bucket: "providers-test"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.(*mem.Backend); !ok {
		t.Errorf("mem:// opened a %T", b)
	}
	if ok, err := b.BucketExists(ctx); !ok || err != nil {
		t.Errorf("mem bucket exists = %v, %v; want it created", ok, err)
	}
	if err := b.Put(ctx, "k", bytes.NewReader([]byte("x")), 1); err != nil {
		t.Error(err)
	}

	b, err = Open(ctx, storage.Target{Scheme: "s3", Bucket: "abc"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.(*s3.Backend); !ok {
		t.Errorf("s3:// opened a %T", b)
	}

	_, err = Open(ctx, storage.Target{Scheme: "ftp", Bucket: "abc"}, o)
	if err == nil || !strings.HasPrefix(err.Error(), `unknown scheme "ftp": supported are s3://`) {
		t.Errorf("unknown scheme: %v", err)
	}
}

func TestSchemes(t *testing.T) {
	t.Parallel()
	for _, s := range Schemes() {
		name := strings.TrimSuffix(s, "://")
		if _, err := Open(context.Background(), storage.Target{Scheme: name, Bucket: "abc"},
			storage.Options{HTTPClient: &http.Client{}, Region: "us-east-1"}); err != nil && strings.Contains(err.Error(), "unknown scheme") {
			t.Errorf("scheme %s listed but not opened: %v", s, err)
		}
	}
}
