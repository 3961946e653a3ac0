// Command network measures the lab's emulated network against its
// performance targets, side by side in one run:
//
//   - one 32 MiB GET stream at 2 ms RTT with no rate cap, through the
//     network in-process, against the same GET on loopback TCP (the
//     embedded server reached directly); target: at least 300 MB/s;
//
//   - the extra resident memory of 100 connections held open across the
//     network; target: under 50 MB.
//
//     go run ./bench/network [-rounds 5]
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
)

func main() {
	rounds := flag.Int("rounds", 5, "GETs per variant; the best is kept")
	conns := flag.Int("conns", 100, "connections held open for the memory figure")
	flag.Parse()
	if err := run(*rounds, *conns); err != nil {
		fmt.Fprintln(os.Stderr, "network:", err)
		os.Exit(1)
	}
}

const size = 32 << 20

func run(rounds, conns int) error {
	ctx := context.Background()
	rtt := 2 * time.Millisecond
	netLab, err := lab.Start(ctx, lab.Config{RTT: &rtt})
	if err != nil {
		return err
	}
	defer netLab.Close()
	direct, err := lab.Start(ctx, lab.Config{})
	if err != nil {
		return err
	}
	defer direct.Close()
	type variant struct {
		name string
		url  string
		dial func(context.Context, string, string) (net.Conn, error)
	}
	vs := []variant{
		{"loopback TCP (lab local, direct)", direct.Endpoint("s3"), nil},
		{"emulated network, 2 ms, in-process", netLab.Endpoint("s3"), netLab.Dial},
		{"emulated network, 2 ms, local endpoint", netLab.LocalEndpoint("s3"), nil},
	}
	body := make([]byte, size)
	for _, v := range vs {
		req, _ := http.NewRequestWithContext(ctx, "PUT", v.url+"/"+lab.Bucket+"/bench/32m", bytes.NewReader(body))
		tr := nettrace.NewTransport(nettrace.Config{Dial: v.dial})
		resp, err := tr.Client().Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		tr.CloseIdleConnections()
	}
	fmt.Printf("one 32 MiB GET stream on a warm connection, best of %d (GOMAXPROCS %d)\n", rounds, runtime.GOMAXPROCS(0))
	fmt.Printf("%-40s %10s %10s\n", "variant", "MB/s", "target")
	for _, v := range vs {
		tr := nettrace.NewTransport(nettrace.Config{Dial: v.dial})
		c := tr.Client()
		best := time.Duration(0)
		for range rounds + 1 { // the first warms the connection
			start := time.Now()
			resp, err := c.Get(v.url + "/" + lab.Bucket + "/bench/32m")
			if err != nil {
				return err
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || n != size {
				return fmt.Errorf("%s: %d bytes: %v", v.name, n, err)
			}
			if d := time.Since(start); best == 0 || d < best {
				best = d
			}
		}
		tr.CloseIdleConnections()
		target := ""
		if v.dial != nil {
			target = ">= 300"
		}
		fmt.Printf("%-40s %10.0f %10s\n", v.name, size/best.Seconds()/1e6, target)
	}

	// Memory: connections held open across the network, each after one
	// 1 KiB GET, as a client's idle pool holds them.
	req, _ := http.NewRequestWithContext(ctx, "PUT", netLab.Endpoint("s3")+"/"+lab.Bucket+"/bench/1k", bytes.NewReader(make([]byte, 1024)))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	runtime.GC()
	before := rss()
	held := make([]net.Conn, 0, conns)
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	port := netLab.LocalEndpoint("s3")[strings.LastIndex(netLab.LocalEndpoint("s3"), ":")+1:]
	for range conns {
		c, err := netLab.Dial(ctx, "tcp", "127.0.0.1:"+port)
		if err != nil {
			return err
		}
		held = append(held, c)
		if _, err := io.WriteString(c, "GET /"+lab.Bucket+"/bench/1k HTTP/1.1\r\nHost: lab\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		resp.Body.Close()
	}
	runtime.GC()
	during := rss()
	fmt.Printf("\n%d connections open across the network, each after a 1 KiB GET\n", conns)
	fmt.Printf("%-40s %10s %10s\n", "", "MB", "target")
	fmt.Printf("%-40s %10.1f\n", "RSS before", before)
	fmt.Printf("%-40s %10.1f\n", "RSS with the connections open", during)
	fmt.Printf("%-40s %10.1f %10s\n", "extra", during-before, "< 50")
	return nil
}

// rss is the process's resident memory in MB (Linux; 0 elsewhere).
func rss() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
