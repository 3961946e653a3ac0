// Command go-awssdk uploads N objects of SIZE bytes to S3 with
// aws-sdk-go-v2, then downloads them, in one of three ways:
//
//	naive     a new config and client for every object, as a function that
//	          builds its client per call does: a new connection each time
//	reused    one client for every object: one kept-alive connection
//	parallel  one client, WORKERS goroutines (OBJBENCH_WORKERS, default 10)
//
// Usage: go-awssdk naive|reused|parallel [N] [SIZE]. It reads the standard
// AWS environment (AWS_ENDPOINT_URL, AWS_CA_BUNDLE, keys, region) and the
// OBJBENCH_* settings that examples/clients/README.md describes, like
// every program under examples/clients.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "go-awssdk:", err)
		os.Exit(1)
	}
}

// task is what every variant does: the same keys, body and bucket.
type task struct {
	variant  string
	bucket   string
	keys     []string
	body     []byte
	download bool
	workers  int
	// rate is OBJBENCH_RATE: objects started per second (open loop: object
	// i is due i/rate s after the first, its time counted from then); 0 as
	// fast as the variant goes. keepGoing (OBJBENCH_KEEP_GOING) counts a
	// failed object instead of stopping.
	rate      float64
	keepGoing bool
	mu        sync.Mutex
	failed    int
	putTimes  []float64
}

func settings(args []string) (*task, error) {
	if len(args) == 0 || (args[0] != "naive" && args[0] != "reused" && args[0] != "parallel") {
		return nil, errors.New("usage: go-awssdk naive|reused|parallel [N] [SIZE]")
	}
	t := &task{variant: args[0], bucket: env("OBJBENCH_BUCKET", "objbench"), workers: 10,
		download: env("OBJBENCH_OPS", "put,get") != "put"}
	nArg, sizeArg := env("OBJBENCH_OBJECTS", "20"), env("OBJBENCH_SIZE", "1KiB")
	if len(args) > 1 {
		nArg = args[1]
	}
	if len(args) > 2 {
		sizeArg = args[2]
	}
	n, err := strconv.Atoi(nArg)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("objects %q: want a whole number, at least 1", nArg)
	}
	size, err := parseSize(sizeArg)
	if err != nil {
		return nil, err
	}
	if w, err := strconv.Atoi(env("OBJBENCH_WORKERS", "10")); err == nil && w > 0 {
		t.workers = w
	}
	if r, err := strconv.ParseFloat(env("OBJBENCH_RATE", "0"), 64); err == nil && r > 0 {
		t.rate = r
	}
	t.keepGoing = env("OBJBENCH_KEEP_GOING", "0") != "0"
	prefix := env("OBJBENCH_PREFIX", fmt.Sprintf("clients/go-awssdk-%s/%d-%d", t.variant, os.Getpid(), time.Now().UnixNano()))
	for i := range n {
		t.keys = append(t.keys, fmt.Sprintf("%s/obj-%05d", prefix, i))
	}
	t.body = make([]byte, size)
	_, _ = rand.Read(t.body)
	return t, nil
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func parseSize(s string) (int, error) {
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1e3}, {"MB", 1e6}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			f, err := strconv.ParseFloat(strings.TrimSuffix(s, u.suffix), 64)
			if err != nil || f < 0 {
				return 0, fmt.Errorf("size %q: want bytes, e.g. 1024, 64KiB, 9MiB", s)
			}
			return int(f * u.mult), nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want bytes, e.g. 1024, 64KiB, 9MiB", s)
	}
	return n, nil
}

// newClient is the documented way: the default config chain, then a client.
func newClient(ctx context.Context) (*s3.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	// Without this, every GetObject of an object stored without a checksum
	// logs a DEBUG line to stderr.
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true }), nil
}

func run(ctx context.Context, args []string) error {
	t, err := settings(args)
	if err != nil {
		return err
	}
	var shared *s3.Client
	if t.variant != "naive" {
		if shared, err = newClient(ctx); err != nil {
			return err
		}
	}
	// client is the shared client, or for naive a new one per object.
	client := func() (*s3.Client, error) {
		if shared != nil {
			return shared, nil
		}
		return newClient(ctx)
	}
	start := time.Now()
	if err := t.each(&t.putTimes, func(key string) error {
		c, err := client()
		if err != nil {
			return err
		}
		return t.put(ctx, c, key)
	}); err != nil {
		return err
	}
	putS := time.Since(start).Seconds()
	start = time.Now()
	getS := 0.0
	if t.download {
		if err := t.each(nil, func(key string) error {
			c, err := client()
			if err != nil {
				return err
			}
			return t.get(ctx, c, key)
		}); err != nil {
			return err
		}
		getS = time.Since(start).Seconds()
	}
	return t.report(putS, getS)
}

// each runs fn on every key: one after another, or for parallel on
// t.workers goroutines that take the next key; paced at t.rate, each
// object's time (from when it was due) appended to times when not nil.
func (t *task) each(times *[]float64, fn func(string) error) error {
	start := time.Now()
	one := func(i int, k string) error {
		due := time.Now()
		if t.rate > 0 {
			due = start.Add(time.Duration(float64(i) / t.rate * float64(time.Second)))
			time.Sleep(time.Until(due))
		}
		err := fn(k)
		t.mu.Lock()
		defer t.mu.Unlock()
		switch {
		case err != nil && t.keepGoing:
			t.failed++
			return nil
		case err == nil && times != nil:
			*times = append(*times, time.Since(due).Seconds())
		}
		return err
	}
	if t.variant != "parallel" {
		for i, k := range t.keys {
			if err := one(i, k); err != nil {
				return err
			}
		}
		return nil
	}
	type item struct {
		i int
		k string
	}
	keys := make(chan item)
	errs := make(chan error, t.workers)
	var wg sync.WaitGroup
	for range min(t.workers, len(t.keys)) {
		wg.Go(func() {
			for it := range keys {
				if err := one(it.i, it.k); err != nil {
					errs <- err
					for range keys { // drain: the sender must not block
					}
					return
				}
			}
		})
	}
	for i, k := range t.keys {
		keys <- item{i, k}
	}
	close(keys)
	wg.Wait()
	close(errs)
	return <-errs
}

// put is PutObject, creating the bucket first if it is missing.
func (t *task) put(ctx context.Context, c *s3.Client, key string) error {
	in := &s3.PutObjectInput{Bucket: aws.String(t.bucket), Key: aws.String(key), Body: bytes.NewReader(t.body)}
	_, err := c.PutObject(ctx, in)
	var nb *types.NoSuchBucket
	if errors.As(err, &nb) {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(t.bucket)}); err != nil {
			return err
		}
		in.Body = bytes.NewReader(t.body)
		_, err = c.PutObject(ctx, in)
	}
	return err
}

func (t *task) get(ctx context.Context, c *s3.Client, key string) error {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(t.bucket), Key: aws.String(key)})
	if err != nil {
		return err
	}
	defer out.Body.Close()
	n, err := io.Copy(io.Discard, out.Body)
	if err != nil {
		return err
	}
	if n != int64(len(t.body)) {
		return fmt.Errorf("%s: got %d bytes, want %d", key, n, len(t.body))
	}
	return nil
}

// report prints one line, and appends a JSON line to $OBJBENCH_CLIENT_TIMES.
func (t *task) report(putS, getS float64) error {
	name := "go-awssdk " + t.variant
	failed := ""
	if t.failed > 0 {
		failed = fmt.Sprintf(", %d failed", t.failed)
	}
	fmt.Printf("%s: %d objects of %d B: upload %.3f s, download %.3f s%s\n", name, len(t.keys), len(t.body), putS, getS, failed)
	path := os.Getenv("OBJBENCH_CLIENT_TIMES")
	if path == "" {
		return nil
	}
	fields := map[string]any{"program": name, "objects": len(t.keys), "size": len(t.body), "put_s": putS, "get_s": getS, "failed": t.failed}
	if n := len(t.putTimes); n > 0 {
		ts := slices.Sorted(slices.Values(t.putTimes))
		fields["put_p50_s"], fields["put_p99_s"] = ts[n/2], ts[min(n-1, int(0.99*float64(n)))]
	}
	line, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
