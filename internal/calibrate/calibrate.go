// Package calibrate measures a real bucket once, from where a program runs,
// into a lab profile (twin.Measured): the lab started from that profile is
// the bucket's twin, on which a program can be explained offline and
// repeatably. It measures the path (round trips from TCP connects, their
// spread, the name lookup, TLS, HTTP/2), the server (service time per
// operation and size: the wait for the first byte on a warm connection
// beyond one round trip, kept as a distribution), one stream's throughput
// by size, optionally the idle keep-alive timeout, and the errors seen.
// It writes only under the run's own fresh prefix and deletes only what it
// wrote.
package calibrate

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab/twin"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

// Options bound a calibration; the zero value of a field is its default.
type Options struct {
	// Samples per service class (default 40).
	Samples int
	// Connects are the fresh connections the round trip is measured on (default 20).
	Connects int
	// ServiceSizes are the GET and PUT size classes (default 1 KiB and 1 MiB).
	ServiceSizes []int64
	// Sizes are the single-stream throughput sizes (default 64 KiB, 1 MiB, 8 MiB).
	Sizes []int64
	// Repeats are the GETs per throughput size (default 3).
	Repeats int
	// Workers are the warm connections sampling service time at once (default 1).
	Workers int
	// Budget bounds the whole calibration: each stage gets its share of
	// what is left (default 100 s).
	Budget time.Duration
	// Idle, when set, also searches the idle keep-alive timeout (its
	// NewClient is filled in); it takes about as long as the timeout.
	Idle *load.IdleSearch
	// Progress, when set, is told each stage and how far it is (a status line's Printf).
	Progress func(format string, a ...any)
}

// Settings are probe --save-profile's: where the profile goes, the bound
// on the calibration, whether to find the idle timeout too, and the sizes
// measured (Options' ServiceSizes and Sizes; empty for the defaults).
type Settings struct {
	Save                string
	Budget              time.Duration
	Idle                bool
	ServiceSizes, Sizes []int64
}

// settingFlags are probe's flags that set a calibration: without Save
// nothing calibrates, so they would be silently ignored.
var settingFlags = []string{"budget", "idle", "service-sizes", "stream-sizes"}

// Check refuses, before any target is opened, settings probe cannot act
// on. Without Save, a calibration flag the user gave (changed says which)
// means nothing; with Save, the profile is one bucket's twin, so one
// target, and the sizes, read from their flags' text into ServiceSizes
// and Sizes, must be ones calibration can write (ParseSizes). Its errors
// are the user's to fix.
func (s *Settings) Check(targets int, changed func(flag string) bool, serviceSizes, streamSizes string) error {
	if s.Save == "" {
		for _, f := range settingFlags {
			if changed(f) {
				return usage.Errorf("--%s is a calibration setting: it needs --save-profile FILE", f)
			}
		}
		return nil
	}
	if targets > 1 {
		return usage.Errorf("--save-profile calibrates one TARGET, got %d", targets)
	}
	var err error
	if s.ServiceSizes, err = ParseSizes("--service-sizes", serviceSizes); err != nil {
		return usage.Wrap(err)
	}
	s.Sizes, err = ParseSizes("--stream-sizes", streamSizes)
	return usage.Wrap(err)
}

// Run opens the target, calibrates it with samples requests per class
// and saves the profile (Save).
func (s Settings) Run(ctx context.Context, open func() (*target.Env, error), samples int, progress func(string, ...any)) (*twin.Measured, error) {
	env, err := open()
	if err != nil {
		return nil, err
	}
	defer env.Close()
	o := Options{Samples: samples, Budget: s.Budget, Progress: progress, ServiceSizes: s.ServiceSizes, Sizes: s.Sizes}
	if s.Idle {
		o.Idle = &load.IdleSearch{Min: time.Second, Max: 120 * time.Second, PerRound: 8, Rounds: 3}
	}
	m, err := Run(ctx, env, o)
	if err == nil {
		err = Save(ctx, env, m, s.Save)
	}
	return m, err
}

// maxSize is the largest object calibration writes.
const maxSize = 256 << 20

// ParseSizes reads a list of sizes for the setting named name (a flag,
// in its errors): distinct, each 1 B to 256 MiB, as calibration writes
// each as an object.
func ParseSizes(name, v string) ([]int64, error) {
	sizes, err := units.ParseSizes(v)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", name, v, err)
	}
	seen := map[int64]bool{}
	for _, s := range sizes {
		if s <= 0 || s > maxSize {
			return nil, fmt.Errorf("%s: %s: use 1B to 256MiB", name, units.FormatSize(s))
		}
		if seen[s] {
			return nil, fmt.Errorf("%s: %s is given twice", name, units.FormatSize(s))
		}
		seen[s] = true
	}
	return sizes, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.Samples == 0 {
		o.Samples = 40
	}
	if o.Connects == 0 {
		o.Connects = 20
	}
	if len(o.ServiceSizes) == 0 {
		o.ServiceSizes = []int64{1 << 10, 1 << 20}
	}
	if len(o.Sizes) == 0 {
		o.Sizes = []int64{64 << 10, 1 << 20, 8 << 20}
	}
	if o.Repeats == 0 {
		o.Repeats = 3
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.Budget == 0 {
		o.Budget = 100 * time.Second
	}
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
	switch {
	case o.Samples < 5 || o.Samples > 100_000:
		return o, fmt.Errorf("samples %d: use 5 to 100000 per class", o.Samples)
	case o.Connects < 3 || o.Connects > 10_000:
		return o, fmt.Errorf("connects %d: use 3 to 10000", o.Connects)
	case o.Workers < 1 || o.Workers > 64:
		return o, fmt.Errorf("workers %d: use 1 to 64", o.Workers)
	case o.Budget < time.Second:
		return o, fmt.Errorf("budget %s: at least 1s", o.Budget)
	}
	for _, s := range append(slices.Clone(o.Sizes), o.ServiceSizes...) {
		if s <= 0 || s > maxSize {
			return o, fmt.Errorf("size %d: use 1 B to 256 MiB", s)
		}
	}
	return o, nil
}

// class is one service class to sample.
type class struct {
	op   string
	size int64
}

// run is one calibration in progress.
type run struct {
	env      *target.Env
	o        Options
	deadline time.Time
	mu       sync.Mutex
	created  []string
	errs     map[string]int
	requests int
	rtt      time.Duration
	rttVar   float64 // the round trip's variance, ms²
	plateau  float64 // one stream's rate, MB/s (0: unknown)
}

// Run calibrates env's bucket. It returns the profile measured so far with
// ctx's error when ctx ends first; the objects it wrote are deleted in
// every case.
func Run(ctx context.Context, env *target.Env, o Options) (*twin.Measured, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	r := &run{env: env, o: o, deadline: start.Add(o.Budget), errs: map[string]int{}}
	defer r.cleanup()
	m := &twin.Measured{Schema: twin.MeasuredSchema, MeasuredAt: start.UTC().Round(time.Second), From: origin(), Target: describeTarget(env)}
	err = r.measure(ctx, m)
	m.DurationS = math.Round(time.Since(start).Seconds()*10) / 10
	m.Errors = r.errorRates()
	return m, err
}

func (r *run) measure(ctx context.Context, m *twin.Measured) error {
	if err := r.setup(ctx); err != nil {
		return err
	}
	if err := r.network(ctx, &m.Network); err != nil {
		return err
	}
	tp, plateau, err := r.throughput(ctx, len(r.classes())+1)
	if err != nil {
		return err
	}
	m.Throughput, m.Network.PlateauMBps = tp, plateau
	r.plateau = plateau
	classes := r.classes()
	for i, c := range classes {
		sc, err := r.service(ctx, c, len(classes)-i)
		if err != nil {
			return err
		}
		m.Service = append(m.Service, sc)
	}
	if r.o.Idle != nil {
		r.o.Progress("calibrate: idle timeout")
		s := *r.o.Idle
		s.NewClient = r.env.Factory(nettrace.Pooled, false, r.env.Options.Upload, 1)
		res, err := s.Run(ctx)
		if err != nil {
			return fmt.Errorf("idle timeout: %w", err)
		}
		m.IdleTimeoutS = res.Estimate().Seconds()
	}
	return nil
}

func (r *run) key(name string) string { return r.env.Prefix + "calibrate/" + name }

func objKey(size int64) string { return "obj-" + strconv.FormatInt(size, 10) }

// setup writes one object per size (unmeasured, retried).
func (r *run) setup(ctx context.Context) error {
	sizes := slices.Sorted(slices.Values(append(slices.Clone(r.o.Sizes), r.o.ServiceSizes...)))
	for i, size := range slices.Compact(sizes) {
		r.o.Progress("calibrate: writing objects %d/%d", i, len(sizes))
		if err := r.put(ctx, r.env.Setup.Backend, r.key(objKey(size)), size); err != nil {
			return fmt.Errorf("calibrate: write %s: %w", units.FormatSize(size), err)
		}
	}
	return nil
}

// put writes a key of the run's own, remembered for cleanup first.
func (r *run) put(ctx context.Context, b storage.Backend, key string, size int64) error {
	r.mu.Lock()
	r.created = append(r.created, key)
	r.mu.Unlock()
	return b.Put(ctx, key, bytes.NewReader(make([]byte, size)), size)
}

// cleanup deletes every key the run wrote (and nothing else), on a
// context of its own so that an interrupted run cleans up too.
func (r *run) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r.o.Progress("calibrate: deleting what it wrote")
	for _, k := range r.created {
		_ = r.env.Setup.Backend.Delete(ctx, k)
	}
}

// stageDeadline shares the time left evenly among the stages left.
func (r *run) stageDeadline(stagesLeft int) time.Time {
	return time.Now().Add(time.Until(r.deadline) / time.Duration(max(stagesLeft, 1)))
}

// timed runs one measured operation and counts its failure class.
func (r *run) timed(ctx context.Context, op func(context.Context) error) (nettrace.Sample, error) {
	s, err := load.Timed(ctx, r.env.Timeout, op)
	r.mu.Lock()
	r.requests++
	if err != nil && ctx.Err() == nil {
		r.errs[string(storage.Classify(err))]++
	}
	r.mu.Unlock()
	if ctx.Err() != nil {
		return s, ctx.Err()
	}
	return s, nil
}

// network opens fresh connections (a HEAD each): connect is one round
// trip, TLS its handshake, then one HTTP/2 request says whether it is offered.
func (r *run) network(ctx context.Context, n *twin.MeasuredNetwork) error {
	key := r.key(objKey(r.o.ServiceSizes[0]))
	c, err := r.env.Factory(nettrace.Fresh, false, r.env.Options.Upload, 1)(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var connect, dns, tlsT []float64
	end := r.stageDeadline(2 + len(r.classes()))
	for i := 0; i < r.o.Connects && (i < 3 || time.Now().Before(end)); i++ {
		r.o.Progress("calibrate: round trips (fresh connections) %d/%d", i, r.o.Connects)
		s, err := r.timed(ctx, func(ctx context.Context) error { _, err := c.Backend.Head(ctx, key); return err })
		if err != nil {
			return err
		}
		if !s.OK() || s.Reused || s.Phases[nettrace.Connect] <= 0 {
			continue
		}
		connect = append(connect, msOf(s.Phases[nettrace.Connect]))
		dns = append(dns, msOf(s.Phases[nettrace.DNS]))
		if s.TLSVersion != "" {
			n.TLS, n.TLSVersion = true, tlsVersion(s.TLSVersion)
			tlsT = append(tlsT, msOf(s.Phases[nettrace.TLS]))
		}
		c.Transport.CloseIdleConnections()
	}
	if len(connect) < 3 {
		return fmt.Errorf("calibrate: only %d of %d fresh connections succeeded", len(connect), r.o.Connects)
	}
	slices.Sort(connect)
	n.ConnectMs = quantiles(connect)
	n.RTTms = round3(stats.Quantile(connect, 0.5))
	iqr := stats.Quantile(connect, 0.75) - stats.Quantile(connect, 0.25)
	n.JitterMs = round3(min(iqr/0.586, n.RTTms))
	slices.Sort(dns)
	n.DNSms = round3(stats.Quantile(dns, 0.5))
	if len(tlsT) > 0 && n.RTTms > 0 {
		slices.Sort(tlsT)
		n.TLSRoundTrips = math.Round(stats.Quantile(tlsT, 0.5)/n.RTTms*10) / 10
	}
	r.rtt = time.Duration(n.RTTms * float64(time.Millisecond))
	// The round trip's own spread, robustly (a few slow connects are the
	// machine's, not the path's): the interquartile range of a normal.
	r.rttVar = math.Pow(iqr/1.349, 2)
	h2, err := r.env.Factory(nettrace.H2, false, r.env.Options.Upload, 1)(ctx)
	if err != nil {
		return err
	}
	defer h2.Close()
	s, err := r.timed(ctx, func(ctx context.Context) error { _, err := h2.Backend.Head(ctx, key); return err })
	if err != nil {
		return err
	}
	n.HTTP2 = s.OK() && s.Proto == "h2"
	return nil
}

// classes are the service classes in the order they are sampled: reads
// first, then writes, then deletes of what the writes made.
func (r *run) classes() []class {
	var cs []class
	for _, s := range r.o.ServiceSizes {
		cs = append(cs, class{"get", s})
	}
	cs = append(cs, class{"head", r.o.ServiceSizes[0]}, class{"list", 0})
	for _, s := range r.o.ServiceSizes {
		cs = append(cs, class{"put", s})
	}
	return append(cs, class{"delete", 0})
}

// service samples one class on warm connections: the wait for the first
// byte less one round trip. The spread of the round trip is taken out of
// the samples' spread (they are shrunk toward their median so that their
// variance loses the round trip's), since the twin's wire adds it again.
func (r *run) service(ctx context.Context, c class, stagesLeft int) (twin.ServiceClass, error) {
	end := r.stageDeadline(stagesLeft)
	name := c.op
	if c.op == "get" || c.op == "put" {
		name += " " + units.FormatSize(c.size)
	}
	var (
		mu      sync.Mutex
		waits   []float64
		next    int
		firstEr error
	)
	// A PUT's body is still crossing the path after the client wrote it
	// into its socket: its wait holds the transfer, which the twin's wire
	// makes again.
	transfer := 0.0
	if c.op == "put" && r.plateau > 0 {
		transfer = float64(c.size) / 1e3 / r.plateau
	}
	var wg sync.WaitGroup
	for w := range r.o.Workers {
		wg.Go(func() {
			cl, err := r.env.Factory(nettrace.Pooled, false, r.env.Options.Upload, 1)(ctx)
			if err != nil {
				mu.Lock()
				firstEr = cmp.Or(firstEr, err)
				mu.Unlock()
				return
			}
			defer cl.Close()
			// Warm the connection: every sample is on a reused one.
			_, _ = cl.Backend.Head(ctx, r.key(objKey(r.o.ServiceSizes[0])))
			for {
				mu.Lock()
				i := next
				next++
				done := len(waits)
				mu.Unlock()
				if i >= r.o.Samples || (i >= 5 && time.Now().After(end)) || ctx.Err() != nil {
					return
				}
				r.o.Progress("calibrate: service time of %s %d/%d", name, done, r.o.Samples)
				op, err := r.op(ctx, cl.Backend, c, w, i)
				if err != nil {
					mu.Lock()
					firstEr = cmp.Or(firstEr, err)
					mu.Unlock()
					return
				}
				s, err := r.timed(ctx, op)
				if err != nil {
					return
				}
				if s.OK() && s.Reused && s.Requests == 1 {
					mu.Lock()
					waits = append(waits, msOf(s.Phases[nettrace.Wait]-r.rtt)-transfer)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := cmp.Or(ctx.Err(), firstEr); err != nil {
		return twin.ServiceClass{}, err
	}
	if len(waits) < 3 {
		return twin.ServiceClass{}, fmt.Errorf("calibrate: service time of %s: only %d requests succeeded on a warm connection", name, len(waits))
	}
	pct := stats.Percentiles101(shrink(waits, r.rttVar))
	for i := range pct {
		pct[i] = round3(max(pct[i], 0))
	}
	return twin.ServiceClass{Op: c.op, SizeBytes: c.size, Count: len(waits), P50ms: pct[50], P99ms: pct[99], PercentilesMs: pct}, nil
}

// op is the i-th request of worker w in class c. A delete removes an
// object this run wrote for it, written first (unmeasured).
func (r *run) op(ctx context.Context, b storage.Backend, c class, w, i int) (func(context.Context) error, error) {
	switch c.op {
	case "get":
		key := r.key(objKey(c.size))
		return func(ctx context.Context) error { _, err := b.Get(ctx, key, io.Discard); return err }, nil
	case "head":
		key := r.key(objKey(c.size))
		return func(ctx context.Context) error { _, err := b.Head(ctx, key); return err }, nil
	case "list":
		prefix := r.key("obj-")
		return func(ctx context.Context) error {
			return b.List(ctx, prefix, func(storage.ObjectInfo) error { return nil })
		}, nil
	case "put":
		key := r.key(fmt.Sprintf("put-%d-%d-%d", c.size, w, i))
		return func(ctx context.Context) error { return r.put(ctx, b, key, c.size) }, nil
	}
	key := r.key(fmt.Sprintf("del-%d-%d", w, i))
	if err := r.put(ctx, r.env.Setup.Backend, key, 1); err != nil {
		return nil, fmt.Errorf("calibrate: write an object to delete: %w", err)
	}
	return func(ctx context.Context) error { return b.Delete(ctx, key) }, nil
}

// throughput GETs each size on one warm connection: the median rate of
// the whole request by size, and the plateau (see plateauRate).
func (r *run) throughput(ctx context.Context, stagesLeft int) ([]twin.ThroughputPoint, float64, error) {
	c, err := r.env.Factory(nettrace.Pooled, false, r.env.Options.Upload, 1)(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer c.Close()
	end := r.stageDeadline(stagesLeft)
	var points []twin.ThroughputPoint
	fastest := make([]float64, len(r.o.Sizes))
	for i, size := range r.o.Sizes {
		r.o.Progress("calibrate: one stream's throughput by size %d/%d", i, len(r.o.Sizes))
		key := r.key(objKey(size))
		var totals, recvs []float64
		for j := 0; j <= r.o.Repeats && (j < 2 || time.Now().Before(end)); j++ {
			s, err := r.timed(ctx, func(ctx context.Context) error { _, err := c.Backend.Get(ctx, key, io.Discard); return err })
			if err != nil {
				return points, 0, err
			}
			if j == 0 || !s.OK() { // the first warms the connection's window
				continue
			}
			totals, recvs = append(totals, msOf(s.Total())), append(recvs, msOf(s.Phases[nettrace.Recv]))
		}
		if len(totals) == 0 {
			return points, 0, fmt.Errorf("calibrate: every GET of %s failed", units.FormatSize(size))
		}
		slices.Sort(totals)
		slices.Sort(recvs)
		t := stats.Quantile(totals, 0.5)
		points = append(points, twin.ThroughputPoint{SizeBytes: size, TotalMs: round3(t), MBps: round3(float64(size) / 1e3 / t)})
		fastest[i] = recvs[0]
	}
	return points, round3(plateauRate(r.o.Sizes, fastest)), nil
}

// plateauRate is one stream's rate once its window is open, in MB/s, from
// the fastest body (after the first byte) of each size, sizes ascending: a
// slower one met the machine's own hiccups, which the twin's machine adds
// again. It is the marginal rate between the two largest sizes, so that
// what the smaller body spent opening the window (the receive window's
// growth, slow start after the first byte) cancels out: the largest body's
// own rate still holds some of it (measured at 200 Mbit and 20 ms: 20.0
// MB/s where the wire carries 24.3), and the twin's wire, set from it,
// was 15% slow at 8 MiB. A marginal rate below the largest body's own, or
// above twice it, is noise: the largest body's rate then.
func plateauRate(sizes []int64, fastestMs []float64) float64 {
	n := len(sizes) - 1
	if n < 0 || fastestMs[n] <= 0 {
		return 0
	}
	whole := float64(sizes[n]) / 1e3 / fastestMs[n]
	if n == 0 || fastestMs[n-1] <= 0 || fastestMs[n] <= fastestMs[n-1] {
		return whole
	}
	marginal := float64(sizes[n]-sizes[n-1]) / 1e3 / (fastestMs[n] - fastestMs[n-1])
	if marginal < whole || marginal > 2*whole {
		return whole
	}
	return marginal
}

func (r *run) errorRates() twin.ErrorRates {
	e := twin.ErrorRates{Requests: r.requests}
	if r.requests == 0 {
		return e
	}
	rate := func(n int) float64 { return float64(n) / float64(r.requests) }
	for class, n := range r.errs {
		switch storage.ErrorClass(class) {
		case storage.ClassThrottled:
			e.Throttle += rate(n)
		case storage.ClassReset:
			e.Reset += rate(n)
		case storage.ClassTimeout:
			e.Timeout += rate(n)
		default:
			e.Other += rate(n)
		}
	}
	return e
}

// shrink moves values toward their median so that their variance loses
// noise (ms²), the part the twin's wire adds back.
func shrink(values []float64, noise float64) []float64 {
	v := variance(values)
	if v <= 0 || noise <= 0 {
		return values
	}
	k := math.Sqrt(max(0, 1-noise/v))
	sorted := slices.Sorted(slices.Values(values))
	med := stats.Quantile(sorted, 0.5)
	out := make([]float64, len(values))
	for i, x := range values {
		out[i] = med + k*(x-med)
	}
	return out
}

func variance(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return sq / float64(len(xs)-1)
}

func quantiles(sorted []float64) twin.Quantiles {
	q := func(p float64) float64 { return round3(stats.Quantile(sorted, p)) }
	return twin.Quantiles{P5: q(0.05), P50: q(0.5), P95: q(0.95), P99: q(0.99)}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// tlsVersion turns "TLS1.3", "TLS 1.3" or "1.3" into "1.3".
func tlsVersion(v string) string {
	return strings.TrimLeft(strings.TrimPrefix(strings.ToUpper(v), "TLS"), "Vv ")
}

func describeTarget(env *target.Env) twin.MeasuredTarget {
	api := map[string]string{"s3": "s3", "gs": "gcs", "az": "azure"}[env.Target.Scheme]
	t := twin.MeasuredTarget{URL: env.Target.String(), Endpoint: env.Endpoint, API: api, Region: env.Options.Region}
	if u, err := url.Parse(env.Endpoint); err == nil {
		t.Peer = u.Hostname()
	}
	return t
}

// origin is where this process runs: the host, and the platform and region
// when the environment names them (never a credential).
func origin() twin.Origin {
	o := twin.Origin{OS: runtime.GOOS + "/" + runtime.GOARCH, Version: document.Version()}
	o.Host, _ = os.Hostname()
	region := cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("GOOGLE_CLOUD_REGION"), os.Getenv("CLOUD_RUN_REGION"))
	switch {
	case os.Getenv("AWS_LAMBDA_FUNCTION_NAME") != "":
		o.Cloud = "aws lambda " + os.Getenv("AWS_LAMBDA_FUNCTION_NAME")
	case os.Getenv("CLOUD_RUN_JOB") != "":
		o.Cloud = "gcp cloud run job " + os.Getenv("CLOUD_RUN_JOB")
	case os.Getenv("K_SERVICE") != "":
		o.Cloud = "gcp cloud run " + os.Getenv("K_SERVICE")
	}
	if region != "" && o.Cloud != "" {
		o.Cloud += " " + region
	} else if region != "" {
		o.Cloud = region
	}
	return o
}
