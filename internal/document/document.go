// Package document is the objbench/v1 document model: one Envelope shared
// by every document (run, strategies, startup, probe, and those to come),
// then each command's body. Domain packages fill documents; report renders
// them and results stores them. It imports no renderer.
package document

import "time"

// Schema is the JSON contract's version tag.
const Schema = "objbench/v1"

// Envelope is what every document starts with, in this order; a document
// embeds it, so its fields are at the top level of the JSON.
type Envelope struct {
	Schema string `json:"schema"`
	RunID  string `json:"run_id"`
	// Command is the objbench command that wrote the document.
	Command   string            `json:"command,omitempty"`
	Target    TargetInfo        `json:"target,omitzero"`
	Lab       *LabInfo          `json:"lab,omitempty"`
	StartedAt string            `json:"started_at"` // RFC 3339
	DurationS float64           `json:"duration_s"`
	Client    ClientInfo        `json:"client"`
	Options   map[string]string `json:"options,omitempty"`
	// Labels are the user's --label k=v values.
	Labels map[string]string `json:"labels,omitempty"`
	// Interrupted is true when the run was stopped before its end.
	Interrupted bool `json:"interrupted,omitempty"`

	// started is StartedAt to the nanosecond, for ordering saved runs.
	started time.Time
}

// Started is when the run started: to the nanosecond when NewEnvelope made
// the envelope, else from StartedAt.
func (e *Envelope) Started() time.Time {
	if !e.started.IsZero() {
		return e.started
	}
	t, _ := time.Parse(time.RFC3339, e.StartedAt)
	return t
}

// Head is the envelope of a document.
func (e *Envelope) Head() *Envelope { return e }

// Document is the objbench/v1 result document of run and probe.
type Document struct {
	Envelope
	// Probe describes a round of `objbench probe` or `serve` (nil otherwise).
	Probe   *ProbeInfo `json:"probe,omitempty"`
	Results []Result   `json:"results"`
}

// ProbeInfo places a probe round in its process: the round number and the
// seq of its first and last requests, which count across rounds, so that a
// round whose first request has seq > 0 ran on a warm client.
type ProbeInfo struct {
	Round    int64 `json:"round"`
	SeqFirst int   `json:"seq_first"`
	SeqLast  int   `json:"seq_last"`
	Failed   int64 `json:"failed"`
}

// TargetInfo says what was measured. Never a credential.
type TargetInfo struct {
	URL      string `json:"url"`
	Provider string `json:"provider"`
	Endpoint string `json:"endpoint,omitempty"`
	Region   string `json:"region,omitempty"`
}

// LabInfo describes the embedded lab when it served the run.
type LabInfo struct {
	API       string  `json:"api"`
	Profile   string  `json:"profile"`
	RTTms     float64 `json:"rtt_ms"`
	JitterMs  float64 `json:"jitter_ms,omitempty"`
	Bandwidth string  `json:"bandwidth,omitempty"`
	TLS       bool    `json:"tls"`
}

// ClientInfo describes where objbench ran.
type ClientInfo struct {
	Version string `json:"objbench_version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Host    string `json:"host"`
	CPUs    int    `json:"cpus,omitempty"`
}

// Dist is a latency distribution in milliseconds.
type Dist struct {
	Min    float64 `json:"min"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

// PhaseDist is one phase's distribution in milliseconds.
type PhaseDist struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Mean float64 `json:"mean"`
}

// Throughput is per-request MB/s at latency percentiles.
type Throughput struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// Group summarises the first request of each worker, or the later ones.
type Group struct {
	Count          int64                `json:"count"`
	TTFBms         Dist                 `json:"ttfb_ms"`
	TotalMs        Dist                 `json:"total_ms"`
	PhasesMs       map[string]PhaseDist `json:"phases_ms"`
	ReusedFraction float64              `json:"reused_fraction"`
}

// Result is one step: one workload, op, size, concurrency and strategy.
type Result struct {
	Workload      string           `json:"workload"`
	Op            string           `json:"op"`
	SizeBytes     int64            `json:"size_bytes"`
	Concurrency   int              `json:"concurrency"`
	Strategy      string           `json:"strategy"`
	Count         int64            `json:"count"`
	Errors        int64            `json:"errors"`
	ErrorsByClass map[string]int64 `json:"errors_by_class,omitempty"`
	Retries       int64            `json:"retries"`
	// Reconnects counts later requests that opened a new connection, such
	// as after the server dropped an idle one; they are not errors.
	Reconnects     int64                `json:"reconnects"`
	RequestsPerOp  float64              `json:"requests_per_op"`
	WallS          float64              `json:"wall_s"`
	TTFBms         Dist                 `json:"ttfb_ms"`
	TotalMs        Dist                 `json:"total_ms"`
	MBps           Throughput           `json:"mb_per_s"`
	AggregateMBps  float64              `json:"aggregate_mb_per_s"`
	PhasesMs       map[string]PhaseDist `json:"phases_ms"`
	ReusedFraction float64              `json:"reused_fraction"`
	FirstRequest   Group                `json:"first_request"`
	LaterRequests  Group                `json:"later_requests"`
	// Open loop (--rate): the latency from the other origin beside
	// ttfb_ms and total_ms (uncorrected when those are from the intended
	// start), and the pacing facts.
	TTFBUncorrectedMs  *Dist     `json:"ttfb_uncorrected_ms,omitempty"`
	TotalUncorrectedMs *Dist     `json:"total_uncorrected_ms,omitempty"`
	OpenLoop           *OpenLoop `json:"open_loop,omitempty"`
}
