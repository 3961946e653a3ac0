// Package twin is the file format of a measured lab profile (objbench
// calibrate): a real bucket's path and service times as measured from where
// a program runs, which a lab started from it reproduces (its twin).
package twin

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/stats"
)

// MeasuredSchema names the format of a measured profile file.
const MeasuredSchema = "objbench-lab-profile/v1"

// Measured is a lab profile measured on a real bucket from where a program
// runs (objbench calibrate): the lab started from it is that bucket's
// twin. The file is JSON, readable and diffable; it records where, when
// and against what it was measured, and never a credential.
type Measured struct {
	Schema     string    `json:"schema"`
	MeasuredAt time.Time `json:"measured_at"`
	DurationS  float64   `json:"duration_s"`
	// From is where the measuring client ran.
	From Origin `json:"from"`
	// Target is what was measured.
	Target MeasuredTarget `json:"target"`
	// Network is the path: round trip, spread, lookup, TLS, HTTP/2, rate.
	Network MeasuredNetwork `json:"network"`
	// Service is the server's time per operation and size class: the wait
	// for the first response byte on a warm connection beyond one round trip.
	Service []ServiceClass `json:"service"`
	// Throughput is one stream's GET rate by object size, warm connection.
	Throughput []ThroughputPoint `json:"throughput"`
	// IdleTimeoutS is the keep-alive timeout found (0: not measured).
	IdleTimeoutS float64 `json:"idle_timeout_s,omitempty"`
	// Errors are the measured requests' failures, as rates.
	Errors ErrorRates `json:"errors"`
	// Limit is request-rate limits for the twin's servers (the lab's
	// --limit syntax), written by hand: measuring never finds one.
	Limit string `json:"limit,omitempty"`
}

// Origin is where a profile was measured from.
type Origin struct {
	Host    string `json:"host,omitempty"`
	OS      string `json:"os"`
	Version string `json:"objbench_version"`
	// Cloud names the platform and region when the environment says
	// (AWS_REGION, Cloud Run's K_SERVICE, …); empty elsewhere.
	Cloud string `json:"cloud,omitempty"`
}

// MeasuredTarget is the bucket measured: never its credentials.
type MeasuredTarget struct {
	URL      string `json:"url"`
	Endpoint string `json:"endpoint,omitempty"`
	// API is the lab API that serves it: s3 or gcs (az: azure).
	API    string `json:"api"`
	Region string `json:"region,omitempty"`
	Peer   string `json:"peer,omitempty"`
}

// MeasuredNetwork is the path as the lab's wire reproduces it.
type MeasuredNetwork struct {
	// RTTms is the median TCP connect time; ConnectMs its distribution.
	RTTms     float64   `json:"rtt_ms"`
	ConnectMs Quantiles `json:"connect_ms"`
	// JitterMs is the lab wire's jitter that gives the connects' spread
	// (each way uniform within ±jitter/2: the interquartile range of the
	// round trip is 0.586 of the jitter).
	JitterMs float64 `json:"jitter_ms"`
	// DNSms is the median name lookup of a new connection (0: an address).
	DNSms float64 `json:"dns_ms"`
	// TLS is whether the endpoint speaks HTTPS; TLSVersion "1.2" or "1.3";
	// TLSRoundTrips is the handshake's median time in round trips.
	TLS           bool    `json:"tls"`
	TLSVersion    string  `json:"tls_version,omitempty"`
	TLSRoundTrips float64 `json:"tls_round_trips,omitempty"`
	// HTTP2 is whether the server offered HTTP/2.
	HTTP2 bool `json:"http2"`
	// PlateauMBps is one warm stream's rate once the window is open, in
	// MB/s (10^6 bytes): the wire's rate in the twin.
	PlateauMBps float64 `json:"plateau_mb_per_s"`
}

// Quantiles summarise a distribution in milliseconds.
type Quantiles struct {
	P5  float64 `json:"p5"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// ServiceClass is one operation and size's service time distribution.
type ServiceClass struct {
	Op        string  `json:"op"`
	SizeBytes int64   `json:"size_bytes"`
	Count     int     `json:"count"`
	P50ms     float64 `json:"p50_ms"`
	P99ms     float64 `json:"p99_ms"`
	// PercentilesMs are the percentiles 0, 1, …, 100 of the service time:
	// the empirical distribution each twin request draws from.
	PercentilesMs []float64 `json:"percentiles_ms"`
}

// ThroughputPoint is one stream's GET rate at one size.
type ThroughputPoint struct {
	SizeBytes int64   `json:"size_bytes"`
	MBps      float64 `json:"mb_per_s"`
	TotalMs   float64 `json:"total_ms"`
}

// ErrorRates are failures per measured request (0-1).
type ErrorRates struct {
	Requests int     `json:"requests"`
	Throttle float64 `json:"throttle"` // 503 SlowDown, 429
	Reset    float64 `json:"reset"`
	Timeout  float64 `json:"timeout"`
	Other    float64 `json:"other"`
}

// LoadMeasured reads a profile file written by Save.
func LoadMeasured(path string) (*Measured, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lab profile: %w", err)
	}
	var m Measured
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("lab profile %s: %w", path, err)
	}
	if m.Schema != MeasuredSchema {
		return nil, fmt.Errorf("lab profile %s: schema %q, want %q (made by objbench calibrate)", path, m.Schema, MeasuredSchema)
	}
	return &m, m.check()
}

func (m *Measured) check() error {
	if m.Network.RTTms < 0 || m.Network.RTTms > 10_000 || m.Network.JitterMs < 0 {
		return fmt.Errorf("lab profile: round trip %g ms or jitter %g ms out of range", m.Network.RTTms, m.Network.JitterMs)
	}
	for _, c := range m.Service {
		if len(c.PercentilesMs) != 101 || !slices.IsSorted(c.PercentilesMs) {
			return fmt.Errorf("lab profile: service %s %d B: want 101 ascending percentiles", c.Op, c.SizeBytes)
		}
	}
	return nil
}

// Save writes the profile as indented JSON, creating FILE's folder.
func (m *Measured) Save(path string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// IsProfileFile says whether a lab PROFILE names a file rather than one of
// the built-in profiles (whose names have no dot or slash).
func IsProfileFile(name string) bool { return strings.ContainsAny(name, "./\\") }

// Ms is v milliseconds as a duration.
func Ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// ServiceTime draws a request's service time from the measured
// distribution of its operation at the nearest size class (by ratio);
// an operation not measured takes GET's.
func (m *Measured) ServiceTime(op string, size int64) time.Duration {
	c := m.class(op, size)
	if c == nil {
		c = m.class("get", size)
	}
	if c == nil {
		return 0
	}
	return Ms(stats.DrawPercentile(c.PercentilesMs, rand.Float64()))
}

func (m *Measured) class(op string, size int64) *ServiceClass {
	var best *ServiceClass
	bestD := math.Inf(1)
	for i := range m.Service {
		c := &m.Service[i]
		if c.Op != op {
			continue
		}
		d := math.Abs(math.Log(float64(max(size, 1))) - math.Log(float64(max(c.SizeBytes, 1))))
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
