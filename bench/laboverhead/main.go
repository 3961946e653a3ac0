// Command laboverhead compares, side by side in one run, the p50 TTFB of
// 1 KiB GETs on a reused connection to the embedded S3 server reached four
// ways: directly, through the lab with profile local (no network: the
// default), and through the emulated network with zero round-trip time, in
// process and through the local endpoint (what the network costs).
// Target: lab local adds no more than 10% to direct.
//
//	go run ./bench/laboverhead [-n 3000] [-rounds 3]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
)

func main() {
	n := flag.Int("n", 3000, "GETs per measurement")
	rounds := flag.Int("rounds", 3, "alternating rounds")
	flag.Parse()
	if err := run(*n, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "laboverhead:", err)
		os.Exit(1)
	}
}

func run(n, rounds int) error {
	ctx := context.Background()
	zero := time.Duration(0)
	local, err := lab.Start(ctx, lab.Config{})
	if err != nil {
		return err
	}
	defer local.Close()
	linked, err := lab.Start(ctx, lab.Config{RTT: &zero, ForceLink: true})
	if err != nil {
		return err
	}
	defer linked.Close()
	// The same embedded server with no lab layer at all.
	mem := s3mem.New()
	if err := mem.CreateBucket(lab.Bucket); err != nil {
		return err
	}
	direct := httptest.NewServer(gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	defer direct.Close()

	type variant struct {
		name string
		url  string
		dial func(context.Context, string, string) (net.Conn, error)
	}
	vs := []variant{
		{"direct (server, no lab layer)", direct.URL, nil},
		{"lab profile local", local.Endpoint("s3"), nil},
		{"lab network at 0 ms, in-process", linked.Endpoint("s3"), linked.Dial},
		{"lab network at 0 ms, local endpoint", linked.LocalEndpoint("s3"), nil},
	}
	for _, v := range vs {
		if err := put(ctx, v.url); err != nil {
			return err
		}
	}
	best := make([]time.Duration, len(vs))
	for r := range rounds {
		for i, v := range vs {
			p50, err := p50TTFB(ctx, v.url, v.dial, n)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			if best[i] == 0 || p50 < best[i] {
				best[i] = p50
			}
			fmt.Printf("round %d  %-36s p50 ttfb %7.1f µs\n", r+1, v.name, float64(p50)/1e3)
		}
	}
	fmt.Printf("\n1 KiB GET on a reused connection, %d GETs per measurement, best p50 of %d rounds\n", n, rounds)
	fmt.Printf("%-36s %12s %8s\n", "variant", "p50 ttfb µs", "vs direct")
	for i, v := range vs {
		fmt.Printf("%-36s %12.1f %+7.1f%%\n", v.name, float64(best[i])/1e3, 100*(float64(best[i])/float64(best[0])-1))
	}
	return nil
}

func put(ctx context.Context, base string) error {
	req, _ := http.NewRequestWithContext(ctx, "PUT", base+"/"+lab.Bucket+"/bench/1k", bytes.NewReader(make([]byte, 1024)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("put: HTTP %d", resp.StatusCode)
	}
	return nil
}

func p50TTFB(ctx context.Context, base string, dial func(context.Context, string, string) (net.Conn, error), n int) (time.Duration, error) {
	tr := nettrace.NewTransport(nettrace.Config{Dial: dial})
	defer tr.CloseIdleConnections()
	c := tr.Client()
	ttfb := make([]time.Duration, 0, n)
	for range n {
		octx, op := nettrace.Begin(ctx)
		req, _ := http.NewRequestWithContext(octx, "GET", base+"/"+lab.Bucket+"/bench/1k", nil)
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s := op.Finish()
		if s.Reused {
			ttfb = append(ttfb, s.TTFB())
		}
	}
	slices.Sort(ttfb)
	return ttfb[len(ttfb)/2], nil
}
