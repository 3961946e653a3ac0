package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/twin"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/units"
)

// Row is one quantity of two profiles side by side (document.ProfileRow,
// the comparison's wire type).
type Row = document.ProfileRow

// Tolerances of Compare: relative, plus an absolute slack for times near zero.
type Tolerances struct {
	Time, Rate float64
	SlackMs    float64
}

// DefaultTolerances are the issue's: times within 10%, rates within 15%,
// 1 ms of slack (the machine's own scheduling at this scale).
var DefaultTolerances = Tolerances{Time: 0.10, Rate: 0.15, SlackMs: 1}

// Compare lines up what both profiles measured: the path, each service
// class's warm first byte (round trip plus service) at p50 and p99 and its
// service time alone, one stream's rate by size, and the time of a warm
// small GET as a workload's verdict. The service time alone is not
// checked: a lab's own time per connect moves it between the two.
func Compare(a, b *twin.Measured, tol Tolerances) []Row {
	var rows []Row
	add := func(q, unit string, x, y, rel, slack float64) {
		t := 0.0
		if rel > 0 {
			t = rel*math.Abs(x) + slack
		}
		rows = append(rows, Row{Quantity: q, Unit: unit, A: x, B: y, Tolerance: round3(t), Pass: t == 0 || math.Abs(x-y) <= t})
	}
	na, nb := a.Network, b.Network
	add("round trip (TCP connect p50)", "ms", na.RTTms, nb.RTTms, tol.Time, tol.SlackMs)
	add("connect p95", "ms", na.ConnectMs.P95, nb.ConnectMs.P95, tol.Time, tol.SlackMs+na.JitterMs/2)
	add("name lookup p50", "ms", na.DNSms, nb.DNSms, 0, 0)
	add("TLS handshake", "round trips", na.TLSRoundTrips, nb.TLSRoundTrips, 0, 0)
	add("HTTP/2 offered", "yes=1", b2f(na.HTTP2), b2f(nb.HTTP2), 0, 0)
	for _, ca := range a.Service {
		cb := findClass(b, ca.Op, ca.SizeBytes)
		if cb == nil {
			continue
		}
		name := ca.Op
		if ca.Op == "get" || ca.Op == "put" {
			name += " " + units.FormatSize(ca.SizeBytes)
		}
		// What a warm request waits for: how a lab splits its own time
		// between connect and exchange does not move it.
		add("warm first byte, "+name+" p50 (round trip + service)", "ms", na.RTTms+ca.P50ms, nb.RTTms+cb.P50ms, tol.Time, tol.SlackMs)
		add("warm first byte, "+name+" p99", "ms", na.RTTms+ca.P99ms, nb.RTTms+cb.P99ms, tol.Time, tol.SlackMs)
		add("service "+name+" p50", "ms", ca.P50ms, cb.P50ms, 0, 0)
	}
	for _, pa := range a.Throughput {
		for _, pb := range b.Throughput {
			if pb.SizeBytes == pa.SizeBytes {
				add("one stream GET "+units.FormatSize(pa.SizeBytes), "MB/s", pa.MBps, pb.MBps, tol.Rate, 0)
			}
		}
	}
	add("one stream plateau", "MB/s", na.PlateauMBps, nb.PlateauMBps, tol.Rate, 0)
	if ga, gb := smallGet(a), smallGet(b); ga > 0 && gb > 0 {
		add("warm small GET, first byte (round trip + service p50)", "ms", ga, gb, 0, 0)
	}
	return rows
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func findClass(m *twin.Measured, op string, size int64) *twin.ServiceClass {
	for i := range m.Service {
		if c := &m.Service[i]; c.Op == op && c.SizeBytes == size {
			return c
		}
	}
	return nil
}

func smallGet(m *twin.Measured) float64 {
	var best *twin.ServiceClass
	for i := range m.Service {
		if c := &m.Service[i]; c.Op == "get" && (best == nil || c.SizeBytes < best.SizeBytes) {
			best = c
		}
	}
	if best == nil {
		return 0
	}
	return round3(m.Network.RTTms + best.P50ms)
}

// Failed counts the rows outside tolerance.
func Failed(rows []Row) int {
	n := 0
	for _, r := range rows {
		if !r.Pass {
			n++
		}
	}
	return n
}

// CheckTwin starts the lab cfg describes (a twin of m: see
// lab.Settings.Config), calibrates it as it would a bucket, with m's own
// sizes and sample counts, and compares the two: lab check --profile.
// link is told the lab's link once it runs.
func CheckTwin(ctx context.Context, cfg lab.Config, m *twin.Measured, o Options) (twin *twin.Measured, rows []Row, err error) {
	api := m.Target.API
	if api != "gcs" {
		api = "s3"
	}
	env, err := target.Open(ctx, target.Config{URL: "lab", Timeout: 30 * time.Second, LabAPI: api, Lab: cfg, RunID: document.NewRunID()})
	if err != nil {
		return nil, nil, err
	}
	defer env.Close()
	o.ServiceSizes, o.Sizes = nil, nil
	for _, c := range m.Service {
		if c.Op == "get" {
			o.ServiceSizes = append(o.ServiceSizes, c.SizeBytes)
		}
		o.Samples = max(o.Samples, min(c.Count, 400))
	}
	for _, p := range m.Throughput {
		o.Sizes = append(o.Sizes, p.SizeBytes)
	}
	slices.Sort(o.ServiceSizes)
	twin, err = Run(ctx, env, o)
	if err != nil {
		return twin, nil, fmt.Errorf("lab check: calibrate the lab: %w", err)
	}
	return twin, Compare(m, twin, DefaultTolerances), nil
}

// Save writes the profile to dest: a file, or an object at a bucket URL
// (s3://bucket/path/profile.json, gs://…) reached as env's target is, so
// that a probe in a function or job leaves its profile where its owner
// can fetch it.
func Save(ctx context.Context, env *target.Env, m *twin.Measured, dest string) error {
	if !strings.Contains(dest, "://") {
		return m.Save(dest)
	}
	t, err := storage.ParseTarget(dest)
	key := strings.TrimSuffix(t.Prefix, "/")
	if err != nil || key == "" || strings.HasSuffix(dest, "/") {
		return fmt.Errorf("profile destination %q: use a file or an object URL such as s3://bucket/profiles/eu-west-1.json", dest)
	}
	b, err := env.OpenOther(ctx, storage.Target{Scheme: t.Scheme, Account: t.Account, Bucket: t.Bucket})
	if err != nil {
		return err
	}
	defer b.Close()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return b.Put(ctx, key, bytes.NewReader(data), int64(len(data)))
}

// CheckProfile is lab check --profile: the twin s describes (its
// ProfileFile, with the flags given) calibrated as a bucket and compared
// with the profile it claims to be.
// Rows outside tolerance make ErrOutside.
func CheckProfile(ctx context.Context, s lab.Settings, progress func(string, ...any)) ([]Row, error) {
	cfg, err := s.Config(nil, "")
	if err != nil {
		return nil, err
	}
	m, err := twin.LoadMeasured(s.ProfileFile)
	if err != nil {
		return nil, err
	}
	_, rows, err := CheckTwin(ctx, cfg, m, Options{Samples: samplesOf(m), Progress: progress})
	if n := Failed(rows); err == nil && n > 0 {
		err = fmt.Errorf("lab check: %d quantities outside tolerance: %w", n, ErrOutside)
	}
	return rows, err
}

// samplesOf is the requests per class the profile was measured with, for
// its twin to be measured alike (a p99 of 40 requests is not one of 400);
// 0 (the default) when it does not say.
func samplesOf(m *twin.Measured) int {
	n := 0
	for _, c := range m.Service {
		n = max(n, c.Count)
	}
	if n < 5 || n > 100_000 {
		return 0
	}
	return n
}

// ErrOutside says a lab is not the profile it claims to be.
var ErrOutside = errors.New("the lab differs from its profile")

// ComparePair compares compare's two arguments as profiles when both are
// files (ok false when they are not: runs, then); a file that is not a
// profile is an error.
func ComparePair(args []string) (rows []Row, ok bool, err error) {
	if len(args) != 2 {
		return nil, false, nil
	}
	for _, f := range args {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			return nil, false, nil
		}
	}
	a, err := twin.LoadMeasured(args[0])
	if err != nil {
		return nil, true, err
	}
	b, err := twin.LoadMeasured(args[1])
	if err != nil {
		return nil, true, err
	}
	return Compare(a, b, DefaultTolerances), true, nil
}
