// Package document is the objbench/v1 document model: one Envelope shared
// by every document (run, strategies, startup, probe, and those to come),
// then each command's body. Domain packages fill documents; report renders
// them and results stores them. It imports no renderer.
package document

import (
	"time"

	"github.com/objbench/objbench/internal/stats"
)

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
	// CutShort, on an interrupted run recovered from its journal (its
	// process killed) or a shard's partial upload, says why and what the
	// results cover.
	CutShort *CutShort `json:"cut_short,omitempty"`
	// Thresholds are the --threshold criteria checked after the run.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`

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
	// Findings are the ranked sentences analysis drew from Results.
	Findings []Finding `json:"findings,omitempty"`
	// Cost is what the requests cost at list prices.
	Cost *Cost `json:"cost,omitempty"`
	// Shard places a shard's document in its run; Merge says how a
	// merged run was made from its shards' (nil otherwise).
	Shard *ShardInfo `json:"shard,omitempty"`
	Merge *MergeInfo `json:"merge,omitempty"`
	// Express is a directory bucket's sessions (nil on other buckets).
	Express *ExpressInfo `json:"express,omitempty"`
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
	// Loss is the random loss probability each way (0-1).
	Loss float64 `json:"loss"`
	// LossModel is bursty loss each way (Loss is then 0); nil for none.
	LossModel *LossModel `json:"loss_model,omitempty"`
	// Reorder is the reordering each way; nil for none.
	Reorder *Reorder `json:"reorder,omitempty"`
	// Duplicate is the probability each way that a packet is sent twice (0-1).
	Duplicate float64 `json:"duplicate,omitempty"`
	// Queue is the bottleneck's drop-tail queue each way in bytes (0: no rate cap).
	Queue int `json:"queue"`
	// MTU of the emulated wire (0 on the direct path).
	MTU int `json:"mtu"`
	// DNSms is the lab resolver's lookup time (0: endpoints by IP address).
	DNSms float64 `json:"dns_ms"`
	// Network is the model that carried the run: "netstack" (user-space
	// TCP/IP stacks across an emulated wire), "netns" (a program's own
	// kernel TCP in a network namespace of its own on the same kind of
	// wire: lab exec, explain; objbench's own on run lab behind a bandwidth
	// cap, with loss or with reordering) or "direct" (loopback).
	Network string `json:"network"`
	// NetworkNote says why a run fell back to netstack where namespaces
	// are unavailable, and what that path cannot show; empty otherwise.
	NetworkNote string `json:"network_note,omitempty"`
	// Rootless is true when the netns path ran in a user namespace
	// objbench made (not root: as rootless containers do), the program
	// as the user's own id.
	Rootless bool `json:"rootless,omitempty"`
	// RecvBuffer and SendBuffer are the TCP buffers' autotuning limits in bytes.
	RecvBuffer int `json:"recv_buffer,omitempty"`
	SendBuffer int `json:"send_buffer,omitempty"`
	// ExactWire is true when the wire kept its CPU awake before each
	// packet's time (--exact-wire).
	ExactWire bool `json:"exact_wire,omitempty"`
	// DirectoryBucket names the S3 bucket when the lab served it as an S3
	// Express One Zone directory bucket (--express); SessionLifetimeS is
	// how long its sessions lasted.
	DirectoryBucket  string  `json:"directory_bucket,omitempty"`
	SessionLifetimeS float64 `json:"session_lifetime_s,omitempty"`
	// Limit is the server's request-rate limit, every setting spelled out
	// as --limit reads it ("s3:get=200/s,put=3500/s,partition=30m");
	// absent when the lab did not limit the API.
	Limit string `json:"limit,omitempty"`
}

// LossModel is the lab's bursty loss: netem's Gilbert-Elliott model
// (`loss gemodel p r 1-h 1-k`), probabilities 0-1.
type LossModel struct {
	// Model is "gemodel".
	Model string  `json:"model"`
	P     float64 `json:"p"`
	R     float64 `json:"r"`
	// BadLoss and GoodLoss are the loss in each state (netem's 1-h, 1-k).
	BadLoss  float64 `json:"bad_loss"`
	GoodLoss float64 `json:"good_loss"`
	// MeanLoss is the long-run loss the model gives.
	MeanLoss float64 `json:"mean_loss"`
}

// Reorder is the lab's reordering (netem's `reorder P% corr%`), 0-1.
type Reorder struct {
	Share       float64 `json:"share"`
	Correlation float64 `json:"correlation,omitempty"`
}

// ClientInfo describes where objbench ran.
type ClientInfo struct {
	Version string `json:"objbench_version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Host    string `json:"host"`
	CPUs    int    `json:"cpus,omitempty"`
}

// The summary types are those of stats, as the recorder returns them: one
// summary model, no copies. Their JSON keys are the contract's.
type (
	// Dist is a latency distribution in milliseconds.
	Dist = stats.Dist
	// PhaseDist is one phase's distribution in milliseconds.
	PhaseDist = stats.Dist
	// Throughput is per-request MB/s at latency percentiles.
	Throughput = stats.Throughput
	// Group summarises the first request of each worker, or the later ones.
	Group = stats.Group
)

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
	// ExpectSent is the fraction of operations whose requests carried
	// "Expect: 100-continue" (--expect-continue, or the SDK's own);
	// ExpectWaited, of those whose client held the body for "100
	// Continue". Sent but not waited is an SDK's header that saves nothing.
	ExpectSent    float64 `json:"expect_sent"`
	ExpectWaited  float64 `json:"expect_waited"`
	FirstRequest  Group   `json:"first_request"`
	LaterRequests Group   `json:"later_requests"`
	// ClientCPUusPerOp is objbench's own CPU time (the whole process, user
	// plus system, across the step) per operation, failed ones included, in
	// microseconds; ClientCPUsPerGB is the same CPU in seconds per GB
	// (10^9 bytes) moved. Zero when not measured or, per GB, nothing moved.
	// On a small machine this CPU is taken from the server or the next
	// request; in a serverless function it is billed. With the embedded
	// lab the servers run in the same process, so their CPU is included.
	ClientCPUusPerOp float64 `json:"client_cpu_us_per_op"`
	ClientCPUsPerGB  float64 `json:"client_cpu_s_per_gb"`
	// ClientRunWaitUsPerOp is the time, per operation in microseconds, the
	// process's threads were ready to run but waited for a CPU held by
	// other work (Linux; zero elsewhere): with ClientCPUusPerOp, the CPU
	// the client wanted, so that a client starved on a shared machine
	// still shows as the limit.
	ClientRunWaitUsPerOp float64 `json:"client_run_wait_us_per_op,omitempty"`
	// GC is what Go's collector did in objbench's process during the step
	// (cycles, stop-the-world pauses, CPU) and the budget it ran under
	// (GOGC and memory limit, set by objbench unless the user set GOGC or
	// GOMEMLIMIT): its pauses fall inside some of the requests measured.
	GC *stats.GC `json:"gc,omitempty"`
	// SeriesIntervalS is the length, in seconds, of each interval of the
	// step's results over time as saved: --interval times a power of two
	// (see stats.TicksFor and stats.Series: the series' memory is bounded);
	// absent when the step has no series.
	SeriesIntervalS float64 `json:"series_interval_s,omitempty"`

	// SilentRetries counts requests the HTTP transport sent again on
	// another connection without telling the caller (an idempotent request
	// on a reused connection that was reset or closed).
	SilentRetries int64 `json:"silent_retries"`
	// Open loop (--rate): the latency from the other origin beside
	// ttfb_ms and total_ms (uncorrected when those are from the intended
	// start), and the pacing facts.
	TTFBUncorrectedMs  *Dist     `json:"ttfb_uncorrected_ms,omitempty"`
	TotalUncorrectedMs *Dist     `json:"total_uncorrected_ms,omitempty"`
	OpenLoop           *OpenLoop `json:"open_loop,omitempty"`
	// Parts is a ranged download's parts (--download ranged): the
	// result's own figures are per object.
	Parts *Parts `json:"parts,omitempty"`
	// RateSteps are an open loop's rates one by one (--rate steps, or a
	// ramp's segments), and Knee where the store pushed back among them.
	RateSteps []RateStep `json:"rate_steps,omitempty"`
	Knee      *Knee      `json:"knee,omitempty"`
	// Wire is what the lab's emulated wire did during the step (a mixed
	// step's ops share their step's); absent off the lab and on its
	// direct path.
	Wire *WireStats `json:"wire,omitempty"`
}

// WireStats is what the lab's emulated wire did during a step, and how
// well this machine kept its time: a step whose packets the wire
// delivered late measured the machine as much as the network.
type WireStats struct {
	// Up is client to server, Down server to client.
	Up   WireWay `json:"up"`
	Down WireWay `json:"down"`
	// LateAfterMs is how far past its time a packet counts as late:
	// 2 ms, or a 20th of the round trip beyond 40 ms.
	LateAfterMs float64 `json:"late_after_ms"`
	// Busy says over 5% of the packets came late: the machine's CPU was
	// elsewhere, and the step's times are partly the machine's.
	Busy bool `json:"busy"`
	// Imprecise says that behind a queue this small at this rate (at most
	// 16 packets, a packet in at most 0.4 ms) over 10% of the packets
	// came 0.1 ms or more past their time: enough there to move a
	// transfer's time by up to three times.
	Imprecise bool `json:"imprecise"`
}

// WireWay is one way of the lab's wire during a step.
type WireWay struct {
	// Packets and Bytes delivered.
	Packets int64 `json:"packets"`
	Bytes   int64 `json:"bytes"`
	// QueueDrops were dropped by the full queue in front of the
	// bottleneck; LossDrops at random (--loss, a profile's bursty loss).
	QueueDrops int64 `json:"queue_drops"`
	LossDrops  int64 `json:"loss_drops"`
	// Late came over LateAfterMs past their time; Tardy 0.1 ms or more
	// (the late ones included).
	Late  int64 `json:"late"`
	Tardy int64 `json:"tardy"`
}

// Add is a's and b's counts together: both ways, or two shards' wires.
func (a WireWay) Add(b WireWay) WireWay {
	return WireWay{Packets: a.Packets + b.Packets, Bytes: a.Bytes + b.Bytes, QueueDrops: a.QueueDrops + b.QueueDrops,
		LossDrops: a.LossDrops + b.LossDrops, Late: a.Late + b.Late, Tardy: a.Tardy + b.Tardy}
}

// Parts are the byte ranges a ranged download (--download ranged) split
// each object's GET into.
type Parts struct {
	SizeBytes int64   `json:"size_bytes"`
	Parallel  int     `json:"parallel"`
	Count     int64   `json:"count"`
	Errors    int64   `json:"errors"`
	TotalMs   Dist    `json:"total_ms"`
	MBPerS    float64 `json:"mb_per_s"`
}

// ExpressInfo is what a run on an S3 Express One Zone directory bucket
// adds: the sessions its clients created (aws-sdk-go-v2 sends
// CreateSession before a client's first request to the bucket and again
// in a session's last minute), and on the lab how its requests were
// signed.
type ExpressInfo struct {
	Bucket string `json:"bucket"`
	// Clients are the measured clients that created a session;
	// CreateSession the requests they sent for it (one per client and
	// session when nothing else makes more).
	Clients       int   `json:"clients"`
	CreateSession int64 `json:"create_session_requests"`
	// SetupCreateSession are the setup client's (bucket check, cleanup).
	SetupCreateSession int64 `json:"setup_create_session_requests"`
	// Lab is the lab's count (nil on a real bucket).
	Lab *ExpressLab `json:"lab,omitempty"`
}

// ExpressLab is the lab directory bucket's count of a run's requests by
// how they were signed, the setup client's included.
type ExpressLab struct {
	SessionLifetimeS float64 `json:"session_lifetime_s"`
	SessionsCreated  int64   `json:"sessions_created"`
	// SessionSigned were signed with a session's credentials and token;
	// AccountSigned with the account's keys (HeadBucket, CopyObject);
	// Refused were answered S3's error (Expired of them for an expired session).
	SessionSigned int64 `json:"session_signed"`
	AccountSigned int64 `json:"account_signed"`
	Refused       int64 `json:"refused"`
	Expired       int64 `json:"expired"`
}
