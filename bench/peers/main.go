// Command peers runs MinIO's warp and objbench alternately against the same
// S3 server, one workload row at a time, and prints each client's throughput
// and its own CPU time per 1,000 operations and per GB, side by side with the
// ratios. bench/peers.sh builds warp and starts MinIO; this program does the
// measuring.
//
// CPU is each client process's own: for warp, utime+stime from
// /proc/PID/stat sampled every 20 ms and cut to the window warp measured
// (its JSON's start and end), so that its preparation and clean-up are not
// counted; for objbench, the step's client_cpu_us_per_op (getrusage of the
// process across the measured step). Both also show the whole process's
// rusage (proc CPU s) for reference.
//
//	go run ./bench/peers -warp PATH -objbench head=PATH [-objbench base=PATH] -endpoint http://127.0.0.1:9000
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type row struct {
	op   string
	size int64
	conc int
	// objects in the GET pool (warp --objects, objbench --objects)
	objects int
}

func (r row) name() string {
	return fmt.Sprintf("%s %s c%d", strings.ToUpper(r.op), sizeName(r.size), r.conc)
}

func sizeName(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

var allRows = []row{
	{op: "get", size: 1 << 10, conc: 8, objects: 100},
	{op: "get", size: 32 << 20, conc: 1, objects: 4},
	{op: "get", size: 32 << 20, conc: 20, objects: 20},
	{op: "put", size: 1 << 10, conc: 8},
	{op: "put", size: 32 << 20, conc: 1},
}

type client struct {
	name, kind, path string
	args             []string // extra objbench flags
}

// result is one client's measurement of one row.
type result struct {
	ops, errs int64
	bytes     int64
	window    time.Duration
	cpu       time.Duration // in the measured window
	procCPU   time.Duration // the whole process, start to exit
}

func (r result) opsPerS() float64 { return float64(r.ops) / r.window.Seconds() }
func (r result) mbPerS() float64  { return float64(r.bytes) / 1e6 / r.window.Seconds() }
func (r result) cpuPer1k() float64 {
	return r.cpu.Seconds() / float64(r.ops+r.errs) * 1000
}
func (r result) cpuPerGB() float64 { return r.cpu.Seconds() / (float64(r.bytes) / 1e9) }

type objFlag []client

func (o *objFlag) String() string { return fmt.Sprint(*o) }
func (o *objFlag) Set(s string) error {
	name, rest, ok := strings.Cut(s, "=")
	if !ok {
		name, rest = "objbench", s
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return fmt.Errorf("no path in %q", s)
	}
	*o = append(*o, client{name: name, kind: "objbench", path: f[0], args: f[1:]})
	return nil
}

func main() {
	var objs objFlag
	warp := flag.String("warp", "", "path of the warp binary")
	flag.Var(&objs, "objbench", "'NAME=PATH [FLAGS]' of an objbench binary and extra flags (repeatable: e.g. base=... 'minio=... --client minio')")
	endpoint := flag.String("endpoint", os.Getenv("OBJBENCH_TEST_S3_ENDPOINT"), "S3 endpoint, http://host:port")
	duration := flag.Duration("duration", 10*time.Second, "measured time per run")
	repeats := flag.Int("repeats", 3, "rounds (the median is printed); the order of the clients alternates between rounds")
	only := flag.String("rows", "", "comma-separated row numbers (1-5) to run; all by default")
	flag.Parse()
	ak, sk := os.Getenv("OBJBENCH_TEST_S3_ACCESS_KEY"), os.Getenv("OBJBENCH_TEST_S3_SECRET_KEY")
	if *warp == "" || len(objs) == 0 || *endpoint == "" || ak == "" || sk == "" {
		fmt.Fprintln(os.Stderr, "peers: need -warp, -objbench, -endpoint and OBJBENCH_TEST_S3_ACCESS_KEY/SECRET_KEY in the environment")
		os.Exit(2)
	}
	rows := allRows
	if *only != "" {
		rows = nil
		for _, f := range strings.Split(*only, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || i < 1 || i > len(allRows) {
				fmt.Fprintf(os.Stderr, "peers: -rows: %q is not a row number 1-%d\n", f, len(allRows))
				os.Exit(2)
			}
			rows = append(rows, allRows[i-1])
		}
	}
	clients := append([]client{{name: "warp", kind: "warp", path: *warp}}, objs...)
	m := &measurer{endpoint: *endpoint, ak: ak, sk: sk, duration: *duration}
	if err := m.run(context.Background(), rows, clients, *repeats); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

type measurer struct {
	endpoint, ak, sk string
	duration         time.Duration
	dir              string
}

func (m *measurer) run(ctx context.Context, rows []row, clients []client, repeats int) error {
	dir, err := os.MkdirTemp("", "objbench-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	m.dir = dir
	fmt.Printf("load average at start: %s\n", loadavg())
	res := map[string]map[string][]result{} // row name → client → results
	for round := range repeats {
		for _, r := range rows {
			order := slices.Clone(clients)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, c := range order {
				out, err := m.measure(ctx, c, r)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", c.name, r.name(), err)
				}
				if res[r.name()] == nil {
					res[r.name()] = map[string][]result{}
				}
				res[r.name()][c.name] = append(res[r.name()][c.name], out)
				fmt.Fprintf(os.Stderr, "round %d  %-14s %-9s %9.0f ops/s %9.1f MB/s  cpu %6.3f s/1k ops %6.3f s/GB  (proc cpu %.2f s, window %.1f s, errors %d)\n",
					round+1, r.name(), c.name, out.opsPerS(), out.mbPerS(), out.cpuPer1k(), out.cpuPerGB(), out.procCPU.Seconds(), out.window.Seconds(), out.errs)
			}
		}
	}
	fmt.Printf("load average at end:   %s\n\n", loadavg())
	fmt.Printf("median of %d rounds, %s each; MB = 10^6 bytes; CPU = the client process's user+sys time in the measured window\n", repeats, m.duration)
	fmt.Printf("%-14s %-9s %10s %10s %12s %10s   %s\n", "workload", "client", "ops/s", "MB/s", "cpu s/1k op", "cpu s/GB", "ratios to warp (throughput, cpu/op, cpu/GB)")
	for _, r := range rows {
		w := median(res[r.name()]["warp"])
		for _, c := range clients {
			x := median(res[r.name()][c.name])
			ratio := ""
			if c.kind != "warp" {
				ratio = fmt.Sprintf("%.2fx  %.2fx  %.2fx", x.opsPerS()/w.opsPerS(), x.cpuPer1k()/w.cpuPer1k(), x.cpuPerGB()/w.cpuPerGB())
			}
			fmt.Printf("%-14s %-9s %10.0f %10.1f %12.3f %10.3f   %s\n", r.name(), c.name, x.opsPerS(), x.mbPerS(), x.cpuPer1k(), x.cpuPerGB(), ratio)
		}
	}
	return nil
}

// median returns the run with the median throughput, with the median CPU
// per operation of all runs (the two are noisy independently).
func median(rs []result) result {
	if len(rs) == 0 {
		return result{window: time.Second}
	}
	byTP := slices.Clone(rs)
	slices.SortFunc(byTP, func(a, b result) int { return cmpF(a.opsPerS(), b.opsPerS()) })
	mid := byTP[(len(byTP)-1)/2]
	byCPU := slices.Clone(rs)
	slices.SortFunc(byCPU, func(a, b result) int { return cmpF(a.cpuPer1k(), b.cpuPer1k()) })
	c := byCPU[(len(byCPU)-1)/2]
	// Scale the median-CPU run's CPU to the median-throughput run's ops.
	mid.cpu = time.Duration(float64(c.cpu) / float64(c.ops+c.errs) * float64(mid.ops+mid.errs))
	return mid
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (m *measurer) measure(ctx context.Context, c client, r row) (result, error) {
	if c.kind == "warp" {
		return m.warp(ctx, c, r)
	}
	return m.objbench(ctx, c, r)
}

func (m *measurer) warp(ctx context.Context, c client, r row) (result, error) {
	host := strings.TrimPrefix(strings.TrimPrefix(m.endpoint, "http://"), "https://")
	args := []string{r.op, "--host", host, "--bucket", "peers-warp", "--obj.size", strconv.FormatInt(r.size, 10),
		"--concurrent", strconv.Itoa(r.conc), "--duration", m.duration.String(), "--json", "--no-color"}
	if r.op == "get" {
		args = append(args, "--objects", strconv.Itoa(r.objects))
	}
	if r.op == "put" {
		args = append(args, "--disable-multipart") // one PutObject per object, as objbench --upload single
	}
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "WARP_ACCESS_KEY="+m.ak, "WARP_SECRET_KEY="+m.sk)
	stdout, samples, proc, err := runSampled(cmd)
	if err != nil {
		return result{}, err
	}
	var doc struct {
		Total struct {
			Requests int64     `json:"total_requests"`
			Errors   int64     `json:"total_errors"`
			Bytes    int64     `json:"total_bytes"`
			Start    time.Time `json:"start_time"`
			End      time.Time `json:"end_time"`
		} `json:"total"`
	}
	i := bytes.IndexByte(stdout, '{')
	if i < 0 {
		return result{}, fmt.Errorf("no JSON in warp's output: %.200s", stdout)
	}
	if err := json.NewDecoder(bytes.NewReader(stdout[i:])).Decode(&doc); err != nil {
		return result{}, fmt.Errorf("warp's JSON: %w", err)
	}
	t := doc.Total
	if t.Requests == 0 || !t.End.After(t.Start) {
		return result{}, fmt.Errorf("warp measured nothing: %.300s", stdout)
	}
	return result{ops: t.Requests - t.Errors, errs: t.Errors, bytes: t.Bytes, window: t.End.Sub(t.Start),
		cpu: cpuBetween(samples, t.Start, t.End), procCPU: proc}, nil
}

func (m *measurer) objbench(ctx context.Context, c client, r row) (result, error) {
	out := filepath.Join(m.dir, "objbench.json")
	args := []string{"run", "s3://peers-objbench", "--endpoint", m.endpoint, "--region", "us-east-1", "--create-bucket",
		"--duration", m.duration.String(), "--json", "-q", "-o", out, "--no-save", "--upload", "single"}
	size := strconv.FormatInt(r.size, 10) + "B"
	if r.op == "get" {
		args = append(args, "--workload", "latency", "--objects", strconv.Itoa(r.objects), "--object-size", size,
			"--gets", "100000000", "--latency-concurrency", strconv.Itoa(r.conc), "--op-sizes", "0", "--op-count", "1")
	} else {
		// The latency workload's PUT step writes a new key per request, as
		// warp does (its HEAD and DELETE steps follow, unread).
		args = append(args, "--workload", "latency", "--objects", "1", "--object-size", "0", "--gets", "1",
			"--latency-concurrency", strconv.Itoa(r.conc), "--op-sizes", size, "--op-count", "100000000")
	}
	cmd := exec.CommandContext(ctx, c.path, append(args, c.args...)...)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+m.ak, "AWS_SECRET_ACCESS_KEY="+m.sk, "AWS_SESSION_TOKEN=")
	_, _, proc, err := runSampled(cmd)
	if err != nil {
		return result{}, err
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		return result{}, err
	}
	var doc struct {
		Results []struct {
			Op       string   `json:"op"`
			Size     int64    `json:"size_bytes"`
			Count    int64    `json:"count"`
			Errors   int64    `json:"errors"`
			WallS    float64  `json:"wall_s"`
			CPUPerOp *float64 `json:"client_cpu_us_per_op"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return result{}, err
	}
	for _, s := range doc.Results {
		if s.Op != r.op || s.Size != r.size {
			continue
		}
		if s.CPUPerOp == nil {
			return result{}, errors.New("this objbench reports no client_cpu_us_per_op: build it at or after the commit that added it")
		}
		n := s.Count + s.Errors
		return result{ops: s.Count, errs: s.Errors, bytes: s.Count * s.Size, window: time.Duration(s.WallS * float64(time.Second)),
			cpu: time.Duration(*s.CPUPerOp * float64(n) * float64(time.Microsecond)), procCPU: proc}, nil
	}
	return result{}, fmt.Errorf("no %s %d B step in objbench's output", r.op, r.size)
}

// sample is the process's CPU time (user+sys) at a moment.
type sample struct {
	at  time.Time
	cpu time.Duration
}

// runSampled runs cmd, sampling its CPU time every 20 ms, and returns its
// standard output, the samples and its total CPU time from rusage.
func runSampled(cmd *exec.Cmd) ([]byte, []sample, time.Duration, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, 0, err
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	var samples []sample
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if cpu, ok := procCPU(pid); ok {
				samples = append(samples, sample{time.Now(), cpu})
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-sampled
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w: %s", filepath.Base(cmd.Path), err, lastLines(stderr.String(), 5))
	}
	var total time.Duration
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		total = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return stdout.Bytes(), samples, total, nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTicks = 100

// procCPU reads utime+stime of pid from /proc.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: fields after its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	s, err2 := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * time.Second / clockTicks, true
}

// cpuBetween interpolates the CPU time used between two moments.
func cpuBetween(ss []sample, from, to time.Time) time.Duration {
	return cpuAt(ss, to) - cpuAt(ss, from)
}

func cpuAt(ss []sample, t time.Time) time.Duration {
	if len(ss) == 0 {
		return 0
	}
	i, _ := slices.BinarySearchFunc(ss, t, func(s sample, t time.Time) int { return s.at.Compare(t) })
	switch {
	case i == 0:
		return ss[0].cpu
	case i >= len(ss):
		return ss[len(ss)-1].cpu
	}
	a, b := ss[i-1], ss[i]
	f := float64(t.Sub(a.at)) / float64(b.at.Sub(a.at))
	return a.cpu + time.Duration(f*float64(b.cpu-a.cpu))
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
