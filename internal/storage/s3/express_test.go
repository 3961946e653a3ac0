package s3

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/labcheck"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
	"github.com/objbench/objbench/internal/timeline"
)

// expressLab is a lab serving its S3 bucket as a directory bucket.
func expressLab(t *testing.T) *lab.Lab {
	t.Helper()
	l, err := lab.Start(context.Background(), lab.Config{Express: true, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func openExpress(t *testing.T, l *lab.Lab, bucket string) *Backend {
	t.Helper()
	b, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: bucket}, storage.Options{
		Endpoint: l.Endpoint("s3"), Region: "us-east-1", Credentials: labcheck.StorageCredentials(l, "s3"),
		HTTPClient: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, MaxAttempts: 1}) // a pool of its own
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExpressConformance: the SDK's session authentication against the
// lab's directory bucket passes the backend suite, and the lab refuses
// none of its requests (every one signed with a session, or with the
// account's keys where S3 wants those).
func TestExpressConformance(t *testing.T) {
	l := expressLab(t)
	bucket := l.Location("s3").Bucket
	if !storage.IsDirectoryBucket(bucket) {
		t.Fatalf("lab bucket %q is not a directory bucket's name", bucket)
	}
	storagetest.Run(t, func(t *testing.T) storage.Backend { return openExpress(t, l, bucket) })
	x := l.Express()
	if x.Counts.Session.Load() == 0 || x.Counts.Rejected.Load() != 0 {
		t.Errorf("session-signed %d, rejected %d", x.Counts.Session.Load(), x.Counts.Rejected.Load())
	}
}

// TestExpressOneSessionPerClient: a client sends CreateSession once,
// before its first request to the bucket, and signs every request after
// it with the session; the lab counts as many sessions as the clients
// sent. Concurrent cold requests on one client each send their own
// (aws-sdk-go-v2 dedups a session's retrieval within one operation only:
// each operation clones the provider with a singleflight group of its
// own), so the clients here start with one request, as objbench's
// workers do (a cold client each, one request at a time).
func TestExpressOneSessionPerClient(t *testing.T) {
	l := expressLab(t)
	bucket := l.Location("s3").Bucket
	const clients, ops = 4, 10
	var wg sync.WaitGroup
	backends := make([]*Backend, clients)
	for i := range backends {
		backends[i] = openExpress(t, l, bucket)
		b := backends[i]
		wg.Go(func() {
			ctx := context.Background()
			for j := range ops {
				key := fmt.Sprintf("one/%p/%d", b, j)
				data := []byte(key)
				if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
					t.Error(err)
					return
				}
				if _, err := b.Get(ctx, key, io.Discard); err != nil {
					t.Error(err)
				}
				if err := b.Delete(ctx, key); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for i, b := range backends {
		if got := b.CreateSessions(); got != 1 {
			t.Errorf("client %d sent %d CreateSession requests, want 1", i, got)
		}
	}
	x := l.Express()
	if got := x.Counts.CreateSession.Load(); got != clients {
		t.Errorf("lab created %d sessions, want one per client (%d)", got, clients)
	}
	if got, want := x.Counts.Session.Load(), int64(clients*ops*3); got != want || x.Counts.Rejected.Load() != 0 {
		t.Errorf("lab: %d requests signed with a session (want %d), %d refused", got, want, x.Counts.Rejected.Load())
	}
	// The lab's record: each connection's first request is its client's
	// CreateSession, and every other one carried the session's token,
	// kept only as present.
	sessions, others := 0, 0
	for _, c := range l.Recorder().Snapshot() {
		for i, r := range c.Requests {
			token := r.Header.Values(timeline.SessionTokenHeader)
			switch {
			case r.Query == "session=" || r.Query == "session":
				sessions++
				if i != 0 || len(token) != 0 {
					t.Errorf("conn %d: CreateSession is request %d, token %q", c.ID, i+1, token)
				}
			case len(token) != 1 || token[0] != timeline.Redacted:
				t.Errorf("conn %d: %s %s?%s carried token %q, want it present and redacted", c.ID, r.Method, r.Path, r.Query, token)
			default:
				others++
			}
		}
	}
	if sessions != clients || others != clients*ops*3 {
		t.Errorf("record: %d CreateSession and %d other requests, want %d and %d", sessions, others, clients, clients*ops*3)
	}
}

// TestExpressConcurrentColdRequests: cold requests at once on one client
// send a CreateSession each (see TestExpressOneSessionPerClient), and the
// client's count is the lab's.
func TestExpressConcurrentColdRequests(t *testing.T) {
	l := expressLab(t)
	b := openExpress(t, l, l.Location("s3").Bucket)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := b.Head(context.Background(), fmt.Sprintf("cold/%d", i)); storage.Classify(err) != storage.ClassNotFound {
				t.Errorf("head: %v, want not found", err)
			}
		})
	}
	wg.Wait()
	got, lab := b.CreateSessions(), l.Express().Counts.CreateSession.Load()
	if got < 1 || got > n || got != lab {
		t.Errorf("client sent %d CreateSession requests, lab created %d sessions; want the same, 1 to %d", got, lab, n)
	}
	t.Logf("%d cold requests at once: %d CreateSession requests", n, got)
}

// TestExpressSessionRefresh: the SDK refreshes a session in its last
// minute (s3ExpressRefreshWindow), in the background. A lab session of 62 s is refreshed
// after about 2 s: over 5 s of requests one client sends 2 or 3 more
// CreateSession requests, the lab creates as many sessions and refuses
// nothing.
func TestExpressSessionRefresh(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s of requests")
	}
	const lifetime = 62 * time.Second
	const window = time.Minute // the SDK's, not configurable
	l, err := lab.Start(context.Background(), lab.Config{Express: true, SessionLifetime: lifetime})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	b := openExpress(t, l, l.Location("s3").Bucket)
	ctx := context.Background()
	start := time.Now()
	n := 0
	for time.Since(start) < 5*time.Second {
		if _, err := b.Head(ctx, "refresh/missing"); storage.Classify(err) != storage.ClassNotFound {
			t.Fatalf("head: %v, want not found", err)
		}
		n++
		time.Sleep(50 * time.Millisecond)
	}
	elapsed := time.Since(start)
	// A request that starts while a refresh is in flight sends one more
	// (the SDK's per-operation singleflight group): at most two a period.
	most := 2 * (1 + int64(elapsed/(lifetime-window)))
	got, x := b.CreateSessions(), l.Express()
	if got < 2 || got > most {
		t.Errorf("%d CreateSession requests in %s, want 2 to %d (refreshes every %s)", got, elapsed.Round(time.Millisecond), most, lifetime-window)
	}
	if x.Counts.CreateSession.Load() != got || x.Counts.Rejected.Load() != 0 || x.Counts.Session.Load() != int64(n) {
		t.Errorf("lab: %d sessions (client sent %d), %d session-signed of %d, %d refused",
			x.Counts.CreateSession.Load(), got, x.Counts.Session.Load(), n, x.Counts.Rejected.Load())
	}
	t.Logf("%d requests in %s: %d CreateSession requests", n, elapsed.Round(time.Millisecond), got)
}

// TestExpressLimits: a directory bucket's limits are the bucket's, not its
// prefixes': at get=5/s, HEADs spread over four prefixes are admitted at
// 5/s in all (per prefix they would be 20), the rest answered 503
// SlowDown; and with no --limit the class's own are in force.
func TestExpressLimits(t *testing.T) {
	limits, err := server.ParseLimits("s3:get=5/s")
	if err != nil {
		t.Fatal(err)
	}
	l, err := lab.Start(context.Background(), lab.Config{Express: true, Limit: limits})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := l.Info("s3").Limit; !strings.Contains(got, "get=5/s") || !strings.Contains(got, "prefix=bucket") {
		t.Errorf("limit %q, want the given rate over the bucket", got)
	}
	b := openExpress(t, l, l.Location("s3").Bucket)
	ctx := context.Background()
	start := time.Now()
	admitted, throttled := 0, 0
	for i := range 80 {
		_, err := b.Head(ctx, fmt.Sprintf("p%d/k", i%4))
		switch storage.Classify(err) {
		case storage.ClassNotFound:
			admitted++
		case storage.ClassThrottled:
			throttled++
		default:
			t.Fatalf("head: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Since(start).Seconds()
	// A full bucket (a tenth of a second's rate, at least one request),
	// then the rate; the session's CreateSession took one token.
	if most := 1 + 5*elapsed*1.1 + 1; float64(admitted) > most || throttled == 0 {
		t.Errorf("%d admitted, %d throttled in %.2f s; want at most %.0f admitted over the bucket", admitted, throttled, elapsed, most)
	}
	t.Logf("%d admitted, %d throttled in %.2f s at get=5/s over 4 prefixes", admitted, throttled, elapsed)
	def, err := lab.Start(context.Background(), lab.Config{Express: true})
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	if got, want := def.Info("s3").Limit, fmt.Sprintf("get=%d/s,put=%d/s", server.ExpressGetsPerSecond, server.ExpressPutsPerSecond); !strings.Contains(got, want) {
		t.Errorf("default limit %q, want the class's %s", got, want)
	}
}
