// Command realpath measures what explain --real costs a program moving a
// lot of data: curl downloads SIZE bytes from a server on the host's
// loopback, side by side in one run (interleaved, medians of -n):
//
//   - direct: curl on the host, no namespace, nothing of objbench's
//     (what the machine does unbounded);
//   - wire only: curl in its namespace on the emulated link (-rate), the
//     packets carried and the host's loopback mapped, nothing captured;
//   - explain --real: the same, with the capture point, the decoder and
//     the key log reader, as explain --real runs it.
//
// It prints each row's throughput, explain --real's against the wire
// only's (target: at least 95%), and the peak of objbench's memory while
// explain --real ran (target: under 64 MB).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/explain"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/realpath"
	"github.com/objbench/objbench/internal/units"
)

func main() {
	size := flag.String("size", "1GiB", "bytes each download moves")
	rate := flag.String("rate", "1Gbit", "the emulated link's rate each way (0: none)")
	n := flag.Int("n", 3, "runs of each row, interleaved")
	flag.Parse()
	if err := run(*size, *rate, *n); err != nil {
		fmt.Fprintln(os.Stderr, "realpath:", err)
		os.Exit(1)
	}
}

func run(sizeFlag, rateFlag string, n int) error {
	size, err := units.ParseSize(sizeFlag)
	if err != nil {
		return err
	}
	var bps int64
	if rateFlag != "0" {
		if bps, err = lab.ParseBandwidth(rateFlag); err != nil {
			return err
		}
	}
	if _, err := exec.LookPath("curl"); err != nil {
		return err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	zeros := make([]byte, 1<<20)
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		for left := size; left > 0; {
			k, err := w.Write(zeros[:min(int64(len(zeros)), left)])
			if err != nil {
				return
			}
			left -= int64(k)
		}
	}))
	port := ln.Addr().(*net.TCPAddr).Port
	curl := func(host string) []string {
		return []string{"curl", "-sS", "-o", "/dev/null", "-w", "%{speed_download}\n", fmt.Sprintf("http://%s:%d/big", host, port)}
	}
	wire := netem.Config{Up: netem.Path{Rate: bps}, Down: netem.Path{Rate: bps}}
	rows := map[string][]float64{}
	var peakRSS, peakHeap int64
	for range n {
		// direct
		out, err := exec.Command(curl("127.0.0.1")[0], curl("127.0.0.1")[1:]...).Output()
		if err != nil {
			return fmt.Errorf("direct: %w", err)
		}
		rows["direct"] = append(rows["direct"], speed(out))
		// wire only
		p, err := realpath.Start(realpath.Config{Wire: wire})
		if err != nil {
			return err
		}
		argv := curl(realpath.HostAddr.String())
		cmd := exec.Command(argv[0], argv[1:]...)
		var buf bytes.Buffer
		cmd.Stdout = &buf
		if err := p.Run(cmd); err != nil {
			p.Close()
			return err
		}
		err = cmd.Wait()
		p.Close()
		if err != nil {
			return fmt.Errorf("wire only: %w", err)
		}
		rows["wire only"] = append(rows["wire only"], speed(buf.Bytes()))
		// explain --real
		runtime.GC()
		stop := sample(&peakRSS, &peakHeap)
		var pbuf bytes.Buffer
		d, err := explain.RunReal(context.Background(), explain.RealConfig{Argv: argv, Output: &pbuf, Prices: analysis.DefaultPrices(), Wire: wire})
		stop()
		if err != nil {
			return fmt.Errorf("explain --real: %w", err)
		}
		if d.Explain.BytesDown < size {
			fmt.Fprintf(os.Stderr, "note: explain --real read %d of %d bytes down (%d requests; conn read %q)\n", d.Explain.BytesDown, size, d.Explain.Requests, readOf(d.Explain.Conns))
		}
		rows["explain --real"] = append(rows["explain --real"], speed(pbuf.Bytes()))
	}
	med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
	fmt.Printf("curl downloading %s over the host's loopback; link %s each way; medians of %d, interleaved\n", sizeFlag, rateFlag, n)
	fmt.Printf("%-16s %10s %10s  %s\n", "path", "MB/s", "Mbit/s", "runs (MB/s)")
	for _, name := range []string{"direct", "wire only", "explain --real"} {
		var runs []string
		for _, v := range rows[name] {
			runs = append(runs, fmt.Sprintf("%.1f", v/1e6))
		}
		fmt.Printf("%-16s %10.1f %10.1f  %s\n", name, med(rows[name])/1e6, med(rows[name])*8/1e6, strings.Join(runs, " "))
	}
	fmt.Printf("explain --real / wire only: %.1f%% (target at least 95%%)\n", 100*med(rows["explain --real"])/med(rows["wire only"]))
	fmt.Printf("objbench's peak while explain --real ran: RSS %.1f MB, Go memory in use %.1f MB (target under 64 MB)\n", float64(peakRSS)/1e6, float64(peakHeap)/1e6)
	return nil
}

// speed is curl's -w %{speed_download} (bytes per second).
func speed(out []byte) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return v
}

// sample keeps the peaks of this process's resident memory and of the Go
// memory it holds (heap in use, stacks), every 50 ms, until stop.
func sample(rss, heap *int64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for !done.Load() {
			runtime.ReadMemStats(&ms)
			*heap = max(*heap, int64(ms.HeapInuse+ms.StackInuse))
			*rss = max(*rss, vmRSS())
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return func() { done.Store(true); wg.Wait() }
}

func vmRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func readOf(cs []document.ExplainConn) string {
	if len(cs) == 0 {
		return ""
	}
	return cs[0].Read
}
