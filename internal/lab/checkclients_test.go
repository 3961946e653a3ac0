package lab

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

// labAPIs are the APIs a test can serve: Azure only with azurite-blob.
func labAPIs(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("azurite-blob"); err != nil {
		t.Log("no azurite-blob on PATH: the Azure SDK is not tested")
		return []string{"s3", "gcs"}
	}
	return []string{"s3", "gcs", "azure"}
}

// TestExpectContinueThroughEverySDK: through each provider's own SDK, a
// 1 MiB PUT with ExpectContinue at 40 ms waits one round trip in wait100
// (±15%) and takes one round trip longer in total than without it, over
// HTTP/1.1 and HTTP/2.
func TestExpectContinueThroughEverySDK(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if testing.Short() {
		t.Skip("timing test")
	}
	rtt := 40 * time.Millisecond
	apis := labAPIs(t)
	l := startLab(t, Config{RTT: &rtt, APIs: apis})
	ctx := context.Background()
	const n = 5
	body := make([]byte, 1<<20)
	// puts makes n measured 1 MiB PUTs through api's SDK on a warm client.
	puts := func(t *testing.T, api string, conn nettrace.Strategy, expect bool) (wait100, total time.Duration, waited int) {
		t.Helper()
		tr := nettrace.NewTransport(nettrace.Config{Strategy: conn, ExpectContinue: expect, HandshakeDelay: l.HandshakeDelay()})
		defer tr.CloseIdleConnections()
		b, err := providers.Open(ctx, l.Target(api), storage.Options{Endpoint: l.Endpoint(api), Credentials: l.Credentials(api),
			HTTPClient: tr.Client(), MaxAttempts: 1, Upload: storage.UploadSingle})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if api == "azure" {
			_ = b.CreateBucket(ctx) // Azurite starts empty; a second create fails harmlessly
		}
		if err := b.Put(ctx, "expect/warm", bytes.NewReader(body), int64(len(body))); err != nil {
			t.Fatal(err)
		}
		var w, tot []time.Duration
		for range n {
			octx, op := nettrace.Begin(ctx)
			err := b.Put(octx, "expect/1m", bytes.NewReader(body), int64(len(body)))
			s := op.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if s.Requests != 1 {
				t.Fatalf("%d requests for one PUT", s.Requests)
			}
			if s.ExpectWaited {
				waited++
			}
			w, tot = append(w, s.Phases[nettrace.Wait100]), append(tot, s.Total())
		}
		slices.Sort(w)
		slices.Sort(tot)
		return w[n/2], tot[n/2], waited
	}
	// wait100 within 15% plus 3 ms; the total's difference, two medians
	// apart, within 15% plus 5 ms.
	within := func(got, want, slack time.Duration) bool {
		tol := want*15/100 + slack
		return got >= want-tol && got <= want+tol
	}
	for _, api := range apis {
		for _, conn := range []nettrace.Strategy{nettrace.Pooled, nettrace.H2} {
			if api == "azure" && conn == nettrace.H2 {
				continue // Azurite speaks HTTP/1.1 only
			}
			t.Run(api+"/"+string(conn), func(t *testing.T) {
				// Not parallel: a timing test measures alone. A shared, noisy
				// machine gets three tries; the test fails only if all miss.
				var msg string
				for try := range 3 {
					w100, withTotal, waited := puts(t, api, conn, true)
					w0, withoutTotal, waited0 := puts(t, api, conn, false)
					t.Logf("try %d: with: wait100 %v total %v (%d/%d waited); without: wait100 %v total %v",
						try+1, w100, withTotal, waited, n, w0, withoutTotal)
					switch {
					case waited != n || waited0 != 0 || w0 != 0:
						t.Fatalf("waited %d of %d with Expect, %d without (wait100 %v)", waited, n, waited0, w0)
					case !within(w100, rtt, 3*time.Millisecond):
						msg = "wait100 " + w100.String() + ", want one round trip " + rtt.String() + " ±15%"
					case !within(withTotal-withoutTotal, rtt, 5*time.Millisecond):
						msg = "total " + withTotal.String() + " with Expect, " + withoutTotal.String() + " without: want one round trip more"
					default:
						return
					}
				}
				t.Error(msg)
			})
		}
	}
}
