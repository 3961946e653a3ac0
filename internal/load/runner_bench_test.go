package load_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

// The runner's whole cost per request against the test MinIO, with the
// clients, tracing and recording of `objbench run`: 1 KiB GETs and PUTs at
// concurrency 8, each client library. Allocations per op and the process's
// CPU per op (cpu-us/op, from getrusage: MinIO is another process) hold
// under load where wall-clock throughput does not. Use a large fixed count
// so that the clients' creation is amortised:
//
//	eval "$(OBJBENCH_CACHE=/work/main/.cache scripts/services env)"
//	go test ./internal/load -run - -bench Runner -benchmem -benchtime 20000x -count 5
func BenchmarkRunner(b *testing.B) {
	ep, ak, sk := os.Getenv("OBJBENCH_TEST_S3_ENDPOINT"), os.Getenv("OBJBENCH_TEST_S3_ACCESS_KEY"), os.Getenv("OBJBENCH_TEST_S3_SECRET_KEY")
	if ep == "" || ak == "" || sk == "" {
		b.Skip("MinIO not running: start it with scripts/services up")
	}
	// One bucket for every run of the benchmark, left in place (empty): the
	// backends have no call to delete a bucket.
	const bucket = "objbench-bench-runner"
	ctx := context.Background()
	opts := func(client string, hc *storage.Options) storage.Options {
		return storage.Options{Endpoint: ep, Region: "us-east-1", MaxAttempts: 1, Client: client,
			Credentials: &storage.StaticCredentials{AccessKeyID: ak, SecretAccessKey: sk}, HTTPClient: hc.HTTPClient}
	}
	tr := nettrace.NewTransport(nettrace.Config{})
	defer tr.CloseIdleConnections()
	target := storage.Target{Scheme: "s3", Bucket: bucket}
	setup, err := providers.Open(ctx, target, opts(storage.ClientSDK, &storage.Options{HTTPClient: tr.Client()}))
	if err != nil {
		b.Fatal(err)
	}
	if ok, err := setup.BucketExists(ctx); err != nil {
		b.Fatal(err)
	} else if !ok {
		if err := setup.CreateBucket(ctx); err != nil {
			b.Fatal(err)
		}
	}
	const keys = 64 // PUTs cycle over these, so that cleanup stays short
	payload := make([]byte, 1024)
	_, _ = rand.Read(payload)
	const getKey = "bench/get"
	if err := setup.Put(ctx, getKey, bytes.NewReader(payload), 1024); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = setup.Delete(ctx, getKey)
		for i := range keys {
			_ = setup.Delete(ctx, "bench/put/"+strconv.Itoa(i))
		}
	}()
	putKeys := make([]string, keys)
	for i := range putKeys {
		putKeys[i] = "bench/put/" + strconv.Itoa(i)
	}
	do := map[string]load.DoFunc{
		"get": func(ctx context.Context, b storage.Backend, key string) error {
			_, err := b.Get(ctx, key, io.Discard)
			return err
		},
		"put": func(ctx context.Context, b storage.Backend, key string) error {
			return b.Put(ctx, key, bytes.NewReader(payload), int64(len(payload)))
		},
	}
	for _, client := range []string{storage.ClientSDK, storage.ClientMinio} {
		for _, op := range []string{"get", "put"} {
			b.Run(client+"/"+op+"-1KiB-c8", func(b *testing.B) {
				// The workers' clients are made before the timer starts (they
				// are still cold: no connection yet), so that what is
				// measured is the cost per request, not the SDK's set-up.
				const conc = 8
				clients := make(chan *load.Client, conc)
				for range conc {
					t := nettrace.NewTransport(nettrace.Config{})
					be, err := providers.Open(ctx, target, opts(client, &storage.Options{HTTPClient: t.Client()}))
					if err != nil {
						b.Fatal(err)
					}
					clients <- &load.Client{Backend: be, Transport: t}
				}
				r := &load.Runner{Timeout: 30 * time.Second, NewClient: func(ctx context.Context) (*load.Client, error) {
					return <-clients, nil
				}}
				key := func(int) string { return getKey }
				if op == "put" {
					key = func(i int) string { return putKeys[i%keys] }
				}
				st := &load.Step{Workload: "bench", Op: op, Size: 1024, Concurrency: conc, Requests: b.N, Key: key, Do: do[op]}
				b.ReportAllocs()
				cpu0, _ := stats.ProcessCPU()
				b.ResetTimer()
				res, err := r.Run(ctx, st)
				b.StopTimer()
				cpu1, _ := stats.ProcessCPU()
				if err != nil {
					b.Fatal(err)
				}
				if res.Summary.Errors > 0 || res.Summary.Count != int64(b.N) {
					b.Fatalf("%d of %d done, %d errors: %s", res.Summary.Count, b.N, res.Summary.Errors, res.FirstError)
				}
				b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
			})
			// The same requests from a plain loop on an untraced client:
			// what the runner and nettrace add is the difference (the
			// target of bench/overhead.sh, in instructions and allocations
			// rather than requests per second).
			b.Run(client+"-loop/"+op+"-1KiB-c8", func(b *testing.B) {
				const conc = 8
				tr := &http.Transport{MaxIdleConnsPerHost: conc}
				defer tr.CloseIdleConnections()
				be, err := providers.Open(ctx, target, opts(client, &storage.Options{HTTPClient: &http.Client{Transport: tr}}))
				if err != nil {
					b.Fatal(err)
				}
				key := func(int) string { return getKey }
				if op == "put" {
					key = func(i int) string { return putKeys[i%keys] }
				}
				var next atomic.Int64
				var failed atomic.Pointer[error]
				var wg sync.WaitGroup
				// The collector's budget the runner measures under.
				_, gcDone := stats.GCBudget(os.Getenv, 0)
				defer gcDone()
				b.ReportAllocs()
				cpu0, _ := stats.ProcessCPU()
				b.ResetTimer()
				for range conc {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
							if err := do[op](ctx, be, key(int(i))); err != nil {
								failed.CompareAndSwap(nil, &err)
								return
							}
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				cpu1, _ := stats.ProcessCPU()
				if p := failed.Load(); p != nil {
					b.Fatal(*p)
				}
				b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
			})
		}
	}
}
