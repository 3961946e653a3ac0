package azure

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

// azurite returns a connection string to an Azurite: the one scripts/services
// started, or one the lab starts when azurite-blob is on PATH.
func azurite(t *testing.T) (connStr, endpoint string) {
	t.Helper()
	if cs := os.Getenv("OBJBENCH_TEST_AZURE_CONNECTION_STRING"); cs != "" {
		for _, part := range strings.Split(cs, ";") {
			if v, ok := strings.CutPrefix(part, "BlobEndpoint="); ok {
				endpoint = v
			}
		}
		return cs, endpoint
	}
	if _, err := exec.LookPath("azurite-blob"); err == nil {
		l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"azure"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l.AzureConnectionString(), l.Endpoint("azure")
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("OBJBENCH_TEST_AZURE_CONNECTION_STRING not set on CI: run the tests through scripts/test")
	}
	t.Skip("Azurite not running: start it with scripts/services up")
	return "", ""
}

func open(t *testing.T, container string, o storage.Options) *Backend {
	t.Helper()
	if o.HTTPClient == nil {
		o.HTTPClient = nettrace.NewTransport(nettrace.Config{}).Client()
	}
	o.MaxAttempts = 1
	b, err := New(context.Background(), storage.Target{Scheme: "az", Account: "devstoreaccount1", Bucket: container}, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConformanceAzurite(t *testing.T) {
	cs, _ := azurite(t)
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", cs)
	b := open(t, "conformance", storage.Options{})
	if ok, err := b.BucketExists(context.Background()); err != nil {
		t.Fatal(err)
	} else if !ok {
		if err := b.CreateBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, up := range []storage.UploadStyle{storage.UploadAuto, storage.UploadMultipart} {
		t.Run(string(up), func(t *testing.T) {
			storagetest.Run(t, func(t *testing.T) storage.Backend {
				return open(t, "conformance", storage.Options{Upload: up, PartSize: 1 << 20, PartConcurrency: 3})
			})
		})
	}
}

func TestUploadStyleRequests(t *testing.T) {
	cs, _ := azurite(t)
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", cs)
	b := open(t, "styles", storage.Options{})
	_ = b.CreateBucket(context.Background())
	tests := []struct {
		up   storage.UploadStyle
		want int
	}{{storage.UploadSingle, 1}, {storage.UploadMultipart, 4}} // 3 MiB in 1 MiB blocks + commit
	for _, tc := range tests {
		t.Run(string(tc.up), func(t *testing.T) {
			tr := nettrace.NewTransport(nettrace.Config{})
			b := open(t, "styles", storage.Options{Upload: tc.up, PartSize: 1 << 20, HTTPClient: tr.Client()})
			data := make([]byte, 3<<20)
			ctx, op := nettrace.Begin(context.Background())
			if err := b.Put(ctx, "obj-"+string(tc.up), bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
			if s := op.Finish(); s.Requests != tc.want {
				t.Errorf("%s: %d requests, want %d", tc.up, s.Requests, tc.want)
			}
			_ = b.Delete(context.Background(), "obj-"+string(tc.up))
		})
	}
}

func TestBadCredentials(t *testing.T) {
	cs, ep := azurite(t)
	_ = cs
	tests := []struct {
		name, env, val string
		newErr, useErr string
	}{
		{"malformed connection string", "AZURE_STORAGE_CONNECTION_STRING", "this is not one", "malformed", ""},
		{"key not base64", "AZURE_STORAGE_KEY", "!!!", "not a valid account key", ""},
		{"wrong key", "AZURE_STORAGE_KEY", "d3Jvbmcta2V5LXdyb25nLWtleQ==", "", "access_denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "")
			t.Setenv(tc.env, tc.val)
			b, err := New(context.Background(), storage.Target{Scheme: "az", Account: "devstoreaccount1", Bucket: "styles"},
				storage.Options{Endpoint: ep, HTTPClient: nettrace.NewTransport(nettrace.Config{}).Client(), MaxAttempts: 1})
			if tc.newErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.newErr) || strings.Contains(err.Error(), tc.val) {
					t.Errorf("err %v, want %q without the secret", err, tc.newErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.BucketExists(context.Background())
			var se *storage.Error
			if c := storage.Classify(err); string(c) != tc.useErr || !errors.As(err, &se) {
				t.Errorf("class %q (%v), want %s", c, err, tc.useErr)
			}
		})
	}
}
