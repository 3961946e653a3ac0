package cli

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/labcheck"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

// TestSDKRetriesCounted: every SDK's retries of throttled answers are
// counted by the transport, whichever SDK sent them: the throttled answers
// objbench counts are the ones the limited lab gave, and each one of an
// operation that then succeeded was retried once.
func TestSDKRetriesCounted(t *testing.T) {
	t.Parallel()
	limits := map[string]string{"s3": "s3:get=4/s,partition=off", "gcs": "gcs:read=4/s,ramp=off", "azure": "azure:blob=4/s"}
	for _, api := range []string{"s3", "gcs", "azure"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath("azurite-blob"); err != nil && api == "azure" {
				t.Skip("no azurite-blob on PATH")
			}
			ctx := context.Background()
			lim, err := server.ParseLimits(limits[api])
			if err != nil {
				t.Fatal(err)
			}
			l, err := lab.Start(ctx, lab.Config{APIs: []string{api}, Limit: lim})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			tr := nettrace.NewTransport(nettrace.Config{})
			defer tr.CloseIdleConnections()
			b, err := providers.Open(ctx, labcheck.StorageTarget(l, api), storage.Options{Endpoint: l.LocalEndpoint(api),
				Credentials: labcheck.StorageCredentials(l, api), HTTPClient: tr.Client(), MaxAttempts: 6, Upload: storage.UploadSingle})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if ok, err := b.BucketExists(ctx); err == nil && !ok {
				if err := b.CreateBucket(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Put(ctx, "hot/k", strings.NewReader("0123456789"), 10); err != nil {
				t.Fatal(err)
			}
			var throttled, retries int
			for range 4 {
				s, err := load.Timed(ctx, time.Minute, func(ctx context.Context) error {
					_, err := b.Get(ctx, "hot/k", io.Discard)
					return err
				})
				if err != nil {
					t.Fatalf("GET: %v (after %d throttled answers)", err, s.Throttled)
				}
				if s.Retries != s.Throttled || s.Requests != s.Throttled+1 {
					t.Errorf("a GET with %d throttled answers: %d retries, %d requests", s.Throttled, s.Retries, s.Requests)
				}
				throttled, retries = throttled+s.Throttled, retries+s.Retries
			}
			var labThrottled int64
			for _, p := range l.Limiter(api).Stats() {
				labThrottled += p.Throttled
			}
			t.Logf("%s: %d throttled answers counted, %d retries; the lab throttled %d", api, throttled, retries, labThrottled)
			if throttled == 0 || int64(throttled) != labThrottled {
				t.Errorf("%d throttled answers counted, the lab gave %d", throttled, labThrottled)
			}
		})
	}
}
