package load

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

// The ranged download's hot path per byte, without a network: the check
// of a body as it streams by, in the write sizes a socket's reads give
// (storage.CopyBody's 256 KiB buffer filled by whatever the connection
// held). On 2 shared cores every cycle here is one MinIO does not get.
//
//	go test ./internal/load -run - -bench Verifier -benchmem
func BenchmarkVerifier(b *testing.B) {
	const size = 8 << 20 // one default range
	body := BodyOf(64 << 20)
	src := make([]byte, size)
	if _, err := body.ReadAt(src, 4<<20); err != nil {
		b.Fatal(err)
	}
	// "words": the first read of a block, compared with the generator;
	// "sums": later reads of it, by its CRC-32C (bodysums.go), which only
	// writes that hold whole 64 KiB blocks can use.
	learnt := (&sumsCache{budget: 1 << 20}).get(body.Size())
	learn := &Verifier{body: body, start: 4 << 20, off: 4 << 20, sums: learnt}
	_, _ = learn.Write(src)
	for _, chunk := range []int{4 << 10, 29 << 10, 64 << 10, 256 << 10} {
		for _, sums := range []blockSums{nil, learnt} {
			name := "words"
			if sums != nil {
				name = "sums"
			}
			b.Run(name+"/write-"+strconv.Itoa(chunk>>10)+"KiB", func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					v := &Verifier{body: body, start: 4 << 20, off: 4 << 20, sums: sums}
					for off := 0; off < size; off += chunk {
						_, _ = v.Write(src[off:min(off+chunk, size)])
					}
					if err := v.Check("get", "k", size); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRangedGet is one object read by Download.Get in ranges through
// the runner, nettrace and the S3 client, against the test MinIO: MB/s,
// objbench's own CPU per GiB (getrusage: MinIO is another process) and
// allocations per object. Profile it with -cpuprofile:
//
//	go test ./internal/load -run - -bench RangedGet -benchtime 5x -cpuprofile cpu.out
func BenchmarkRangedGet(b *testing.B) {
	ep, ak, sk := os.Getenv("OBJBENCH_TEST_S3_ENDPOINT"), os.Getenv("OBJBENCH_TEST_S3_ACCESS_KEY"), os.Getenv("OBJBENCH_TEST_S3_SECRET_KEY")
	if ep == "" || ak == "" || sk == "" {
		b.Skip("MinIO not running: start it with scripts/services up")
	}
	const bucket = "objbench-bench-runner" // left in place, as BenchmarkRunner's
	const size = 256 << 20
	ctx := context.Background()
	open := func(ctx context.Context) (*Client, error) {
		tr := nettrace.NewTransport(nettrace.Config{})
		be, err := providers.Open(ctx, storage.Target{Scheme: "s3", Bucket: bucket}, storage.Options{
			Endpoint: ep, Region: "us-east-1", MaxAttempts: 1, Client: storage.ClientSDK,
			Credentials: &storage.StaticCredentials{AccessKeyID: ak, SecretAccessKey: sk}, HTTPClient: tr.Client(),
			Upload: storage.UploadMultipart, PartSize: 16 << 20, PartConcurrency: 4})
		return &Client{Backend: be, Transport: tr}, err
	}
	setup, err := open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer setup.Close()
	be := setup.Backend
	if ok, err := be.BucketExists(ctx); err != nil {
		b.Fatal(err)
	} else if !ok {
		if err := be.CreateBucket(ctx); err != nil {
			b.Fatal(err)
		}
	}
	const key = "bench/ranged-256MiB"
	if err := be.Put(ctx, key, BodyOf(size).Reader(), size); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = be.Delete(ctx, key) }()
	for _, d := range []Download{{Mode: DownloadRanged, PartSize: 8 << 20, Parallel: 16}, {Mode: DownloadRanged, PartSize: 16 << 20, Parallel: 8}} {
		b.Run("parts="+strconv.Itoa(int(d.PartSize>>20))+"MiBx"+strconv.Itoa(d.Parallel), func(b *testing.B) {
			ps := &PartStats{Size: d.PartSize, Parallel: d.Parallel}
			d.Part = ps.add
			r := &Runner{Timeout: time.Minute, NewClient: open}
			st := &Step{Workload: "bench", Op: "get", Size: size, Concurrency: 1, Requests: b.N,
				Key: func(int) string { return key }, Parts: ps,
				Do: func(ctx context.Context, b storage.Backend, key string) error { return d.Get(ctx, b, key, size) }}
			b.SetBytes(size)
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
			b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N)/(float64(size)/(1<<30)), "cpu-s/GiB")
		})
	}
}
