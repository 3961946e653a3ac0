// Command overhead measures, side by side in one run, how many 1 KiB GETs per
// second objbench's traced runner achieves against the embedded S3 server,
// compared with a plain loop on an untraced net/http client, and with the same
// SDK client untraced (to tell tracing cost from SDK cost); then the same
// for the minio-go client (--client minio); and the traced runner with
// its results per interval, without and with the journal `objbench run`
// writes to the results database at each interval (issue 40: within 5%).
//
//	go run ./bench/overhead [-c 8] [-n 20000] [-rounds 3] [-interval 100ms]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/labcheck"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/providers"
)

func main() {
	conc := flag.Int("c", 8, "concurrency")
	n := flag.Int("n", 20000, "requests per measurement")
	rounds := flag.Int("rounds", 3, "alternating rounds of each variant")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to FILE")
	interval := flag.Duration("interval", 100*time.Millisecond, "the runner's interval for the journal's variants (objbench run's default is 1s: ten times fewer writes)")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "overhead:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	if err := run(*conc, *n, *rounds, *interval); err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(conc, n, rounds int, interval time.Duration) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "objbench-overhead")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	db, err := results.Open(ctx, filepath.Join(tmp, "results.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := lab.Start(ctx, lab.Config{})
	if err != nil {
		return err
	}
	defer l.Close()
	openClient := func(client string, hc *http.Client) (storage.Backend, error) {
		return providers.Open(ctx, labcheck.StorageTarget(l, "s3"), storage.Options{Endpoint: l.Endpoint("s3"), Region: "us-east-1",
			Credentials: labcheck.StorageCredentials(l, "s3"), HTTPClient: hc, MaxAttempts: 1, Client: client})
	}
	setup, err := openClient(storage.ClientSDK, &http.Client{})
	if err != nil {
		return err
	}
	const key = "bench/overhead/1k"
	if err := setup.Put(ctx, key, bytes.NewReader(make([]byte, 1024)), 1024); err != nil {
		return err
	}
	defer setup.Delete(ctx, key)
	url := l.Endpoint("s3") + "/" + lab.Bucket + "/" + key

	plain := func() (float64, error) {
		tr := &http.Transport{MaxIdleConnsPerHost: conc}
		defer tr.CloseIdleConnections()
		c := &http.Client{Transport: tr}
		return loop(conc, n, func() error {
			resp, err := c.Get(url)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return err
		})
	}
	untraced := func(client string) func() (float64, error) {
		return func() (float64, error) {
			tr := &http.Transport{MaxIdleConnsPerHost: conc}
			defer tr.CloseIdleConnections()
			b, err := openClient(client, &http.Client{Transport: tr})
			if err != nil {
				return 0, err
			}
			return loop(conc, n, func() error {
				_, err := b.Get(ctx, key, io.Discard)
				return err
			})
		}
	}
	journals := 0
	tracedWith := func(client string, iv time.Duration, journal bool) func() (float64, error) {
		return func() (float64, error) {
			r := &load.Runner{NewClient: func(ctx context.Context) (*load.Client, error) {
				tr := nettrace.NewTransport(nettrace.Config{})
				b, err := openClient(client, tr.Client())
				return &load.Client{Backend: b, Transport: tr}, err
			}, Interval: iv}
			if journal { // as objbench run journals: each interval's ops in one statement
				journals++
				id, seq := fmt.Sprintf("overhead-%d", journals), 0
				if err := db.BeginJournal(ctx, id, time.Now(), []byte(`{}`)); err != nil {
					return 0, err
				}
				defer db.DropJournal(ctx, id)
				r.OnInterval = func(_ *load.Step, ivs []stats.Interval) {
					rows := make([]results.JournalInterval, 0, len(ivs))
					for _, iv := range ivs {
						b, _ := json.Marshal(iv)
						rows = append(rows, results.JournalInterval{Op: iv.Op, End: time.Now(), Data: b})
					}
					if err := db.JournalIntervals(ctx, id, 1, seq, rows); err != nil {
						fmt.Fprintln(os.Stderr, "overhead: journal:", err)
					}
					seq++
				}
			}
			st := &load.Step{Workload: "latency", Op: "get", Size: 1024, Concurrency: conc, Requests: n,
				Key: func(int) string { return key },
				Do: func(ctx context.Context, b storage.Backend, k string) error {
					_, err := b.Get(ctx, k, io.Discard)
					return err
				}}
			res, err := r.Run(ctx, st)
			if err != nil {
				return 0, err
			}
			if res.Summary.Errors > 0 {
				return 0, fmt.Errorf("%d errors: %s", res.Summary.Errors, res.FirstError)
			}
			return float64(res.Summary.Count) / res.Wall.Seconds(), nil
		}
	}
	traced := func(client string) func() (float64, error) { return tracedWith(client, 0, false) }
	variants := []struct {
		name string
		fn   func() (float64, error)
	}{{"plain net/http loop", plain}, {"SDK loop, untraced", untraced(storage.ClientSDK)}, {"objbench runner (traced)", traced(storage.ClientSDK)},
		{"minio-go loop, untraced", untraced(storage.ClientMinio)}, {"runner --client minio", traced(storage.ClientMinio)},
		{"runner, intervals", tracedWith(storage.ClientSDK, interval, false)}, {"runner, intervals journaled", tracedWith(storage.ClientSDK, interval, true)}}
	best := make([]float64, len(variants))
	cpu := make([]float64, len(variants)) // the least process CPU per request (µs), the embedded server's included
	for round := range rounds {
		for i, v := range variants {
			c0, _ := stats.ProcessCPU()
			rps, err := v.fn()
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			c1, _ := stats.ProcessCPU()
			us := float64(c1-c0) / float64(time.Microsecond) / float64(n)
			best[i] = max(best[i], rps)
			if cpu[i] == 0 || us < cpu[i] {
				cpu[i] = us
			}
			fmt.Printf("round %d  %-26s %9.0f req/s %6.1f cpu-us/req\n", round+1, v.name, rps, us)
		}
	}
	fmt.Printf("\n1 KiB GET, concurrency %d, %d requests per measurement, best of %d rounds\n", conc, n, rounds)
	fmt.Printf("%-26s %9s %8s\n", "variant", "req/s", "ratio")
	for i, v := range variants {
		fmt.Printf("%-26s %9.0f %7.1f%%\n", v.name, best[i], 100*best[i]/best[0])
	}
	fmt.Printf("tracing cost alone (traced runner / untraced loop of the same client): SDK %.1f%%, minio-go %.1f%%\n",
		100*best[2]/best[1], 100*best[4]/best[3])
	fmt.Printf("journal at every %s interval (journaled / not): throughput %.1f%%, CPU per request %.1f%% (least of the rounds; target: within 5%%)\n",
		interval, 100*best[6]/best[5], 100*cpu[6]/cpu[5])
	return nil
}

// loop runs fn n times with conc goroutines and returns calls per second,
// under the collector's budget the runner measures with (GOGC and memory
// limit), so that the comparison is of the code, not of the collector.
func loop(conc, n int, fn func() error) (float64, error) {
	_, gcDone := stats.GCBudget(os.Getenv, 0)
	defer gcDone()
	var next atomic.Int64
	var firstErr atomic.Pointer[error]
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := fn(); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return 0, *p
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
