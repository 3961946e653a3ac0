// Command nullget is the cheapest client of a ranged GET that can be
// written: the ceiling bench/large-objects.sh sets objbench's ranged
// download against ("what loopback allows with MinIO serving"). It reads
// one object in byte ranges of each of -parts (MiB), each of -par at a time, over plain net/http
// with one URL presigned once (SigV4, aws-sdk-go-v2's presigner, so no
// signing per request and no SDK on the path), each range into a buffer
// of its worker's and dropped: no verification, no tracing, no
// allocation per byte. Each configuration of the grid is read -rounds
// times; a row per configuration gives the best and the median MB/s
// (10^6 bytes/s) and the process's CPU (user plus system) per GiB read.
//
//	go run ./bench/nullget -endpoint URL -bucket B -key K [-parts 8,16] [-par 8,16] [-rounds 3]
//	go run ./bench/nullget -endpoint URL -bucket B -key K -put 1073741824
//
// -put stores the object (random bytes repeating every MiB, one PutObject, the bucket
// made if missing) unless one of that size is there, and reads nothing:
// the object the other clients of the benchmark read too.
// Credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "nullget:", err)
		os.Exit(1)
	}
}

func run() error {
	endpoint := flag.String("endpoint", "", "S3 endpoint, http://host:port")
	bucket := flag.String("bucket", "", "bucket")
	key := flag.String("key", "", "object key")
	parts := flag.String("parts", "8", "part sizes in MiB, comma-separated")
	pars := flag.String("par", "16", "ranges in flight, comma-separated")
	rounds := flag.Int("rounds", 3, "reads of the object per configuration")
	bufSize := flag.Int("buf", 256<<10, "read size per call, bytes")
	put := flag.Int64("put", 0, "store an object of this many bytes (unless there) and exit")
	flag.Parse()
	if *endpoint == "" || *bucket == "" || *key == "" {
		return errors.New("-endpoint, -bucket and -key are required")
	}
	partList, err := ints(*parts)
	if err != nil {
		return fmt.Errorf("-parts: %w", err)
	}
	parList, err := ints(*pars)
	if err != nil {
		return fmt.Errorf("-par: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(*endpoint),
		UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(
			os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), ""),
	})
	head, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: bucket, Key: key})
	if *put > 0 {
		if err == nil && aws.ToInt64(head.ContentLength) == *put {
			return nil
		}
		return store(ctx, client, *bucket, *key, *put)
	}
	if err != nil {
		return fmt.Errorf("head: %w", err)
	}
	size := aws.ToInt64(head.ContentLength)
	signed, err := s3.NewPresignClient(client).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: key},
		s3.WithPresignExpires(time.Hour))
	if err != nil {
		return fmt.Errorf("presign: %w", err)
	}
	maxPar := slices.Max(parList)
	hc := &http.Client{Transport: &http.Transport{
		Proxy: nil, MaxIdleConns: maxPar, MaxIdleConnsPerHost: maxPar, DisableCompression: true,
	}}
	fmt.Printf("%-12s %10s %10s %10s\n", "config", "best_MB/s", "p50_MB/s", "cpu_s/GiB")
	for _, p := range partList {
		for _, par := range parList {
			var rates []float64
			cpu0 := cpuTime()
			for range *rounds {
				t := time.Now()
				if err := readAll(ctx, hc, signed.URL, size, int64(p)<<20, par, *bufSize); err != nil {
					return err
				}
				rates = append(rates, float64(size)/time.Since(t).Seconds()/1e6)
			}
			cpu := (cpuTime() - cpu0).Seconds() / float64(*rounds) / (float64(size) / (1 << 30))
			slices.Sort(rates)
			fmt.Printf("%-12s %10.0f %10.0f %10.2f\n", fmt.Sprintf("%dMiBx%d", p, par), rates[len(rates)-1], rates[len(rates)/2], cpu)
		}
	}
	return nil
}

// readAll reads size bytes at url in ranges of part, par at a time.
func readAll(ctx context.Context, hc *http.Client, url string, size, part int64, par, bufSize int) error {
	n := (size + part - 1) / part
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range min(int64(par), n) {
		wg.Go(func() {
			buf := make([]byte, bufSize)
			for {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				off := i * part
				length := min(part, size-off)
				if err := readRange(ctx, hc, url, off, length, buf); err != nil {
					mu.Lock()
					first = cmpOr(first, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

func readRange(ctx context.Context, hc *http.Client, url string, off, length int64, buf []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Range", "bytes="+strconv.FormatInt(off, 10)+"-"+strconv.FormatInt(off+length-1, 10))
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return fmt.Errorf("range at %d: %s", off, resp.Status)
	}
	var got int64
	for {
		k, err := resp.Body.Read(buf)
		got += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("range at %d after %d bytes: %w", off, got, err)
		}
	}
	if got != length {
		return fmt.Errorf("range at %d: %d of %d bytes", off, got, length)
	}
	return nil
}

// store puts size bytes at key (a random MiB over and over: MinIO does not
// compress by default), making the bucket if needed.
func store(ctx context.Context, client *s3.Client, bucket, key string, size int64) error {
	if _, err := client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &bucket}); err != nil {
		if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
			return fmt.Errorf("create bucket: %w", err)
		}
	}
	block := make([]byte, 1<<20)
	r := rand.NewChaCha8([32]byte{1})
	_, _ = r.Read(block)
	body := io.NewSectionReader(repeat(block), 0, size)
	if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: body, ContentLength: &size}); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	return nil
}

// repeat is an endless io.ReaderAt of one block over and over.
type repeat []byte

func (b repeat) ReadAt(p []byte, off int64) (int, error) {
	for n := 0; n < len(p); {
		k := copy(p[n:], b[(off+int64(n))%int64(len(b)):])
		n += k
	}
	return len(p), nil
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// cpuTime is the process's user plus system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
