package s3

import (
	"bytes"
	"context"
	"testing"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/labcheck"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

func openStyle(t *testing.T, l *lab.Lab, up storage.UploadStyle, tr *nettrace.Transport) *Backend {
	t.Helper()
	b, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: lab.Bucket}, storage.Options{
		Endpoint: l.Endpoint("s3"), Region: "us-east-1", Credentials: labcheck.StorageCredentials(l, "s3"), HTTPClient: tr.Client(),
		MaxAttempts: 1, Upload: up, PartSize: 5 << 20, PartConcurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUploadStyles: the request count of each style for a 12 MiB object in
// 5 MiB parts, and the suite with every style.
func TestUploadStyles(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		up   storage.UploadStyle
		want int
	}{
		{storage.UploadSingle, 1},
		{storage.UploadAuto, 1},      // below the transfer manager's 16 MiB threshold
		{storage.UploadMultipart, 5}, // create, 3 parts, complete
	}
	for _, tc := range tests {
		t.Run(string(tc.up), func(t *testing.T) {
			tr := nettrace.NewTransport(nettrace.Config{})
			b := openStyle(t, l, tc.up, tr)
			data := bytes.Repeat([]byte("objbench"), 12<<20/8)
			ctx, op := nettrace.Begin(context.Background())
			if err := b.Put(ctx, "styles/"+string(tc.up), bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
			if s := op.Finish(); s.Requests != tc.want {
				t.Errorf("%d requests, want %d", s.Requests, tc.want)
			}
			var buf bytes.Buffer
			if _, err := b.Get(context.Background(), "styles/"+string(tc.up), &buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("read back %d bytes, %v", buf.Len(), err)
			}
			_ = b.Delete(context.Background(), "styles/"+string(tc.up))
			storagetest.Run(t, func(t *testing.T) storage.Backend {
				return openStyle(t, l, tc.up, nettrace.NewTransport(nettrace.Config{}))
			})
		})
	}
}
