package calibrate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/explain"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/lab/twin"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
	"github.com/objbench/objbench/internal/target"
)

// hidden is the "real" server's service time, which calibration never
// sees: a mixture of two uniform bands (none of the lab's shapes, and with
// a bounded tail so that its p99 is steady at a thousand samples), slower
// for list and delete.
type hidden struct{}

func (hidden) ServiceTime(op string, size int64) time.Duration {
	ms := 8 + 8*rand.Float64()
	if rand.Float64() < 0.25 {
		ms = 30 + 15*rand.Float64()
	}
	switch op {
	case "list":
		ms *= 1.5
	case "delete":
		ms *= 0.8
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// The target's true settings, hidden from calibration. The rate is one
// the lab's user-space stacks carry with room to spare on a loaded 2-core
// machine: at 200 Mbit they topped out near 18 MB/s, so calibration
// measured their CPU, not the wire, and the twin, its wire set to that
// and its own stacks as slow again, came out 15% slow at 8 MiB and in
// explain's 256 KiB transfers (the program's path, the kernel's TCP,
// carries more).
const (
	hiddenRTT       = 20 * time.Millisecond
	hiddenJitter    = 2 * time.Millisecond
	hiddenBandwidth = 100_000_000 // bits/s
)

// TestTwinEndToEnd builds a "real" target (MinIO behind the lab's wire at
// a round trip with jitter and a rate, TLS 1.3, and a service time the
// lab has no shape for), calibrates from it, starts its twin from the
// profile file alone, and runs one workload on both, alternating between
// them in rounds: TTFB p50 and p99 within ±10% per operation, the two
// distributions within a two-sample KS distance of 0.1, one stream's GET
// throughput by size within ±15%; then the Go client example under
// explain on both: the same requests and connections, round trips per
// object within half a round trip, the wall time within ±15%. These are
// the bounds, asserted as they are. The target's own spread is
// logged beside each figure: its even rounds against its odd ones, the
// profile (its calibration) against its workload a minute later, and
// explain run on it twice. Measured on this machine (2026-11-25): quiet,
// the target against itself was KS 0.03-0.04, p50 0.1-0.7%, p99 0-0.8%,
// and its profile against its workload KS 0.03-0.09; with another
// process taking 70% of a core (load average 5-8), KS 0.03-0.08, p99 up
// to 38% (put), and its profile against its workload up to KS 0.16 (a
// 1.5 ms shift) and p99 up to +58% (the calibration's own slow requests
// in the profile's tail); explain's wall time moved 3-9% between two
// runs. About 5 minutes on 2 quiet cores.
func TestTwinEndToEnd(t *testing.T) {
	if raceDetector {
		t.Skip("timing test: run without -race (scripts/test's timing step)")
	}
	// Not in CI: it takes 5 minutes, and on a 2-core machine loaded by
	// other work the target itself moves up to 1 ms at the median between
	// its calibration and the workload a minute later (a KS distance of
	// 0.1 for these distributions), and the slow requests of a busy
	// calibration stay in the profile's tail (see above). Run it by hand.
	if os.Getenv("OBJBENCH_TWIN_E2E") == "" {
		t.Skip("about 5 minutes; set OBJBENCH_TWIN_E2E=1 to run it")
	}
	endpoint, creds := storagetest.MinIO(t)
	// The upstream's credentials are the client's own (its provider's chain).
	t.Setenv("AWS_ACCESS_KEY_ID", creds.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", creds.SecretAccessKey)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bucket := storagetest.RandomBucket()
	up, err := server.ParseUpstream(endpoint + "/" + bucket)
	if err != nil {
		t.Fatal(err)
	}
	rtt, jitter, bw := hiddenRTT, hiddenJitter, int64(hiddenBandwidth)
	realCfg := lab.Config{Upstream: up, RTT: &rtt, Jitter: &jitter, Bandwidth: &bw, TLS: true, Service: hidden{}}
	realEnv := openLab(ctx, t, realCfg)

	start := time.Now()
	calOpts := Options{Samples: n, Workers: workers, ServiceSizes: []int64{1 << 10}, Budget: 3 * time.Minute}
	m, err := Run(ctx, realEnv, calOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("load average %s; errors seen: %+v", loadAvg(), m.Errors)
	t.Logf("calibrated in %s: rtt %.2f ms, jitter %.2f ms, TLS %s (%.1f round trips), h2 %v, plateau %.1f MB/s",
		time.Since(start).Round(time.Second), m.Network.RTTms, m.Network.JitterMs, m.Network.TLSVersion,
		m.Network.TLSRoundTrips, m.Network.HTTP2, m.Network.PlateauMBps)
	for _, c := range m.Service {
		t.Logf("profile: service %-6s %8d B: p50 %6.2f ms, p99 %6.2f ms (%d requests)", c.Op, c.SizeBytes, c.P50ms, c.P99ms, c.Count)
	}
	for _, p := range m.Throughput {
		t.Logf("profile: one stream GET %8d B: %6.2f MB/s (%.1f ms)", p.SizeBytes, p.MBps, p.TotalMs)
	}
	file := filepath.Join(t.TempDir(), "profile.json")
	if err := m.Save(file); err != nil {
		t.Fatal(err)
	}
	twinCfg, err := labSettings(file).Config(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	twinEnv := openLab(ctx, t, twinCfg)

	// The same workload on both.
	ttfb, tp := workload(ctx, t, []*target.Env{realEnv, twinEnv}, n)
	realTTFB, twinTTFB, realTP, twinTP := ttfb[0], ttfb[1], tp[0], tp[1]
	t.Logf("the twin takes %s, its own time per exchange, out of each service time", twinEnv.Lab.OwnExchangeTime())
	// The bounds are asserted as they are. The target's own spread
	// run to run is logged beside each figure: its even rounds against its
	// odd ones (half the requests each, so √2 wider than two whole runs),
	// and the profile's warm first byte (the round trip plus the service
	// draws) against the target's workload a minute later.
	var missed []string
	strict := func(what string, diff, bound float64) {
		if diff > bound {
			missed = append(missed, fmt.Sprintf("%s %.3g > %.3g", what, diff, bound))
			t.Errorf("%s: %.3g, more than the issue's %.3g", what, diff, bound)
		}
	}
	defer func() {
		t.Logf("the issue's bounds (±10%% TTFB p50/p99, KS 0.1, ±15%% one stream, ±15%% explain wall): %d missed %v", len(missed), missed)
	}()
	for _, op := range ops {
		a, b := realTTFB[op], twinTTFB[op]
		a1, a2 := halves(a)
		drawn := warmDraws(m, op)
		ksSelf, ksDrift := stats.KSDistance(a1, a2)/math.Sqrt2, stats.KSDistance(drawn, a)
		ks := stats.KSDistance(a, b)
		slices.Sort(a)
		slices.Sort(b)
		for _, q := range []float64{0.5, 0.99} {
			x, y := stats.Quantile(a, q), stats.Quantile(b, q)
			self := relDiff(quantile(a1, q), quantile(a2, q)) / math.Sqrt2
			t.Logf("%-6s TTFB p%-2.0f target %6.2f ms  twin %6.2f ms  (%+5.1f%%; the target against itself %.1f%%, the profile %.2f ms)",
				op, q*100, x, y, (y/x-1)*100, self*100, quantile(drawn, q))
			strict(fmt.Sprintf("%s TTFB p%.0f", op, q*100), relDiff(x, y), 0.10)
		}
		t.Logf("%-6s KS distance %.3f (the target against itself %.3f, the profile against the target %.3f)", op, ks, ksSelf, ksDrift)
		strict(op+" KS distance", ks, 0.1)
	}
	for _, size := range tpSizes {
		x, y := realTP[size], twinTP[size]
		t.Logf("GET %8d B one stream: target %7.2f MB/s  twin %7.2f MB/s  (%+5.1f%%; the profile %.2f)", size, x, y, (y/x-1)*100, rate(m, size))
		strict(fmt.Sprintf("GET %d B one stream's rate", size), relDiff(x, y), 0.15)
	}
	t.Logf("load average after the workload: %s", loadAvg())

	// A client example under explain: against the target, then its twin;
	// what it wrote to the target is deleted after.
	prog := buildClient(t)
	argv := []string{prog, "reused", "20", "256KiB"}
	prefix := realEnv.Prefix + "client"
	t.Setenv("OBJBENCH_PREFIX", prefix)
	defer func() {
		var keys []string
		_ = realEnv.Setup.Backend.List(context.Background(), prefix, func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil })
		for _, k := range keys {
			_ = realEnv.Setup.Backend.Delete(context.Background(), k)
		}
	}()
	dt := explainOn(ctx, t, realCfg, argv, bucket)
	dw := explainOn(ctx, t, twinCfg, argv, lab.Bucket)
	dt2 := explainOn(ctx, t, realCfg, argv, bucket) // the target's own spread run to run
	t.Logf("explain: target %.2f and %.2f round trips/object, %.2f and %.2f s; twin %.2f round trips/object, %.2f s",
		dt.RoundTripsPerObject, dt2.RoundTripsPerObject, dt.WallS, dt2.WallS, dw.RoundTripsPerObject, dw.WallS)
	if dt.Connections != dw.Connections || dt.Requests != dw.Requests {
		t.Errorf("explain: target %d requests on %d connections, twin %d on %d", dt.Requests, dt.Connections, dw.Requests, dw.Connections)
	}
	strict("explain wall", relDiff(dt.WallS, dw.WallS), 0.15)
	strict("explain round trips/object", math.Abs(dt.RoundTripsPerObject-dw.RoundTripsPerObject), 0.5)
}

// warmDraws is a profile's warm first byte for op (round trip plus
// service time), as 2000 evenly spaced draws from its percentiles.
func warmDraws(m *twin.Measured, op string) []float64 {
	var pct []float64
	for _, c := range m.Service {
		if c.Op == op {
			pct = c.PercentilesMs
			break
		}
	}
	out := make([]float64, 2000)
	for i := range out {
		out[i] = m.Network.RTTms + stats.DrawPercentile(pct, (float64(i)+0.5)/float64(len(out)))
	}
	return out
}

// rate is a profile's one-stream GET rate at size.
func rate(m *twin.Measured, size int64) float64 {
	for _, p := range m.Throughput {
		if p.SizeBytes == size {
			return p.MBps
		}
	}
	return 0
}

func labSettings(file string) lab.Settings {
	return lab.Settings{ProfileFile: file, TLSVersion: "1.3", IdleTimeout: 20 * time.Second, MTU: 1500,
		DNSTTL: 5 * time.Second, RecvBuffer: "6MiB", SendBuffer: "4MiB"}
}

// openLab starts a lab and opens its s3 endpoint as a target.
func openLab(ctx context.Context, t *testing.T, cfg lab.Config) *target.Env {
	t.Helper()
	env, err := target.Open(ctx, target.Config{URL: "lab", LabAPI: "s3", Lab: cfg, Timeout: 30 * time.Second, RunID: document.NewRunID()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	return env
}

// The workload's connections per target, and its rounds (alternating
// between the targets).
// n is the requests of each operation on each side (and calibration's
// per class): the sampling noise alone of a two-sample KS distance between
// like distributions is 0.87/√(n/2) on average, and the twin's profile
// is itself a sample of n; at 400 the three made 0.075 on average and
// passed 0.1 in about one operation of five (0.04-0.12 measured), at
// 1000 they make 0.048 and pass 0.1 once in some 400 operations.
const workers, rounds, n = 4, 10, 1000

var (
	ops     = []string{"get", "head", "list", "put", "delete"}
	tpSizes = []int64{64 << 10, 1 << 20, 8 << 20}
)

// workload runs n requests of each operation on 4 warm connections per
// target, and 11 GETs of each size on one (a GET's first byte holds a
// service time drawn from two bands: the median of 5 moved 64 KiB's rate
// by ±20%), alternating between the targets
// in rounds so that both see the machine's load alike: TTFB in ms by
// target and operation, the median rate in MB/s by target and size. Every
// object it writes is deleted.
func workload(ctx context.Context, t *testing.T, envs []*target.Env, n int) ([]map[string][]float64, []map[int64]float64) {
	t.Helper()
	ttfb := make([]map[string][]float64, len(envs))
	tp := make([]map[int64]float64, len(envs))
	clients := make([][]*load.Client, len(envs))
	for e, env := range envs {
		ttfb[e], tp[e] = map[string][]float64{}, map[int64]float64{}
		b := env.Setup.Backend
		keys := []string{env.Prefix + "w/small"}
		for _, size := range tpSizes {
			keys = append(keys, fmt.Sprintf("%sw/big-%d", env.Prefix, size))
		}
		for i, k := range keys {
			size := int64(1024)
			if i > 0 {
				size = tpSizes[i-1]
			}
			if err := b.Put(ctx, k, bytes.NewReader(make([]byte, size)), size); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() {
			for _, k := range keys {
				_ = b.Delete(context.Background(), k)
			}
		})
		for range workers {
			c, err := env.Factory(nettrace.Pooled, false, env.Options.Upload, 1)(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			_, _ = c.Backend.Head(ctx, keys[0])
			clients[e] = append(clients[e], c)
		}
	}
	var mu sync.Mutex
	for _, op := range ops {
		for round := range rounds {
			for e, env := range envs {
				small := env.Prefix + "w/small"
				var wg sync.WaitGroup
				for w, c := range clients[e] {
					wg.Go(func() {
						for i := range n / workers / rounds {
							key := fmt.Sprintf("%sw/put-%d-%d-%d", env.Prefix, w, round, i)
							s, err := load.Timed(ctx, 30*time.Second, func(ctx context.Context) error {
								switch op {
								case "get":
									_, err := c.Backend.Get(ctx, small, io.Discard)
									return err
								case "head":
									_, err := c.Backend.Head(ctx, small)
									return err
								case "list":
									// Four keys, as calibration lists.
									return c.Backend.List(ctx, env.Prefix+"w/", func(storage.ObjectInfo) error { return nil })
								case "put":
									return c.Backend.Put(ctx, key, bytes.NewReader(make([]byte, 1024)), 1024)
								}
								return c.Backend.Delete(ctx, key)
							})
							if err != nil {
								t.Errorf("%s: %v", op, err)
								return
							}
							mu.Lock()
							ttfb[e][op] = append(ttfb[e][op], float64(s.TTFB())/1e6)
							mu.Unlock()
						}
					})
				}
				wg.Wait()
			}
		}
	}
	for _, size := range tpSizes {
		rates := make([][]float64, len(envs))
		for j := range 12 {
			for e, env := range envs {
				key := fmt.Sprintf("%sw/big-%d", env.Prefix, size)
				s, err := load.Timed(ctx, time.Minute, func(ctx context.Context) error {
					_, err := clients[e][0].Backend.Get(ctx, key, io.Discard)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if j > 0 { // the first opens the connection's window
					rates[e] = append(rates[e], float64(size)/1e3/(float64(s.Total())/1e6))
				}
			}
		}
		for e := range envs {
			slices.Sort(rates[e])
			tp[e][size] = stats.Quantile(rates[e], 0.5)
		}
	}
	return ttfb, tp
}

// halves splits samples recorded in rounds of equal size into the even
// rounds and the odd ones.
func halves(xs []float64) (even, odd []float64) {
	per := len(xs) / rounds
	for i, x := range xs {
		if (i/max(per, 1))%2 == 0 {
			even = append(even, x)
		} else {
			odd = append(odd, x)
		}
	}
	return even, odd
}

func quantile(xs []float64, q float64) float64 {
	return stats.Quantile(slices.Sorted(slices.Values(xs)), q)
}

func relDiff(x, y float64) float64 { return math.Abs(y/x - 1) }

// loadAvg is the machine's load average, for the log.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

// buildClient builds examples/clients/go-awssdk (or takes the installed one).
func buildClient(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("OBJBENCH_CLIENTS"); dir != "" {
		if p := filepath.Join(dir, "bin", "go-awssdk"); fileExists(p) {
			return p
		}
	}
	out := filepath.Join(t.TempDir(), "go-awssdk")
	cmd := exec.Command("go", "build", "-o", out, "./examples/clients/go-awssdk")
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the Go client example: %v\n%s", err, b)
	}
	return out
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// explainOn runs argv under explain on a lab configured as cfg (s3 only).
func explainOn(ctx context.Context, t *testing.T, cfg lab.Config, argv []string, bucket string) document.Explain {
	t.Helper()
	cfg.APIs = []string{"s3"}
	t.Setenv("OBJBENCH_BUCKET", bucket)
	var out strings.Builder
	d, err := explain.Run(ctx, explain.Config{Lab: cfg, Argv: argv, Timeout: 2 * time.Minute, Output: &out,
		Prices: analysis.DefaultPrices(), RunID: document.NewRunID()})
	if err != nil {
		t.Fatalf("explain %s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	if d.Explain.ExitCode != 0 {
		t.Fatalf("explain %s: exit %d\n%s", strings.Join(argv, " "), d.Explain.ExitCode, out.String())
	}
	return d.Explain
}
