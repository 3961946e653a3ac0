package document

// ShardInfo places one shard's document in its run (`objbench run
// --shard I/N`, or an engine's task index).
type ShardInfo struct {
	// Run is the run id the shards share (the document's own run_id is
	// the shard's, RUN-shard-I, when saved apart).
	Run   string `json:"run"`
	Index int    `json:"index"`
	Count int    `json:"count"`
	// Engine is where the index came from: flag, kubernetes, cloudrun, batch.
	Engine string `json:"engine"`
	// Prefix is the shard's own key space in the target.
	Prefix string `json:"prefix"`
	// StartAt is when the shards' measured window was planned to begin
	// (RFC 3339, --start-at or --start-in), empty when not synchronised.
	StartAt string `json:"start_at,omitempty"`
	// LateMs is how long after StartAt this shard was ready to start.
	LateMs float64 `json:"late_ms,omitempty"`
	// ClockOffsetMs is this machine's clock minus the storage service's
	// (from the time it stamped an object this shard wrote), and
	// ClockErrorMs how far it can be off; ClockMeasured says whether it was.
	ClockMeasured bool    `json:"clock_measured"`
	ClockOffsetMs float64 `json:"clock_offset_ms"`
	ClockErrorMs  float64 `json:"clock_error_ms"`
	// Windows are each result's measured window on this machine's clock
	// (RFC 3339 with nanoseconds), in the order of results.
	Windows []Window `json:"windows"`
	// Failed is why the shard stopped before its end, if it did.
	Failed string `json:"failed,omitempty"`
}

// ShardRatesMetric is the stored metric (beside a merged result's
// histograms) of its shards' rates over time.
const ShardRatesMetric = "shard_rates"

// ShardRate is one shard's operations per second over time, in seconds
// since the first shard's start: the report's per-shard lines.
type ShardRate struct {
	Shard   int       `json:"shard"`
	StartS  []float64 `json:"start_s"`
	EndS    []float64 `json:"end_s"`
	OpsPerS []float64 `json:"ops_per_s"`
}

// Window is a measured interval of wall-clock time.
type Window struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// MergeInfo says how `objbench merge` made a run from shard documents, and
// what the result lacks.
type MergeInfo struct {
	// Expected is the shard count the run was started with (or --expect).
	Expected int `json:"expected"`
	// Merged are the shards whose documents were merged; Missing those
	// with none; Partial those that stopped early (interrupted or failed)
	// and wrote what they had.
	Merged  []int `json:"merged"`
	Missing []int `json:"missing,omitempty"`
	Partial []int `json:"partial,omitempty"`
	// Lacks says in sentences what the merged result is missing.
	Lacks []string `json:"lacks,omitempty"`
	// ClockSpreadMs is the largest difference between the shards' clock
	// offsets (0 when not measured); Clocks are each shard's estimate.
	ClockSpreadMs float64      `json:"clock_spread_ms"`
	Clocks        []ShardClock `json:"clocks,omitempty"`
	// Steps are per result: the windows, throughput and per-shard rows.
	Steps []MergedStep `json:"steps"`
}

// ShardClock is a shard's clock against the storage service's. Applied
// says whether merge moved the shard's windows by the offset: only when it
// is larger than its error bound (shards on one machine, or on clocks kept
// by NTP to a few ms, are left as they are rather than moved by noise).
type ShardClock struct {
	Shard    int     `json:"shard"`
	OffsetMs float64 `json:"offset_ms"`
	ErrorMs  float64 `json:"error_ms"`
	Applied  bool    `json:"applied"`
}

// MergedStep is one merged result's windows and shards. Throughput over
// the common window (every shard running) is what the shards sustained
// together; over the whole window (first start to last end) it is diluted
// by stragglers.
type MergedStep struct {
	Workload         string      `json:"workload"`
	Op               string      `json:"op"`
	SizeBytes        int64       `json:"size_bytes"`
	CommonWindowS    float64     `json:"common_window_s"`
	WholeWindowS     float64     `json:"whole_window_s"`
	CommonOpsPerS    float64     `json:"common_ops_per_s"`
	WholeOpsPerS     float64     `json:"whole_ops_per_s"`
	CommonMBPerS     float64     `json:"common_mb_per_s"`
	WholeMBPerS      float64     `json:"whole_mb_per_s"`
	OpsPerSSpreadPct float64     `json:"ops_per_s_spread_pct"`
	Stragglers       []int       `json:"stragglers,omitempty"`
	Shards           []ShardStep `json:"shards"`
}

// ShardStep is one shard's row of a merged result.
type ShardStep struct {
	Shard   int     `json:"shard"`
	Count   int64   `json:"count"`
	Errors  int64   `json:"errors"`
	OpsPerS float64 `json:"ops_per_s"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	// StartLateMs is how long after the first shard this one started;
	// EndLateMs how long after the median end it finished (negative: before).
	StartLateMs float64 `json:"start_late_ms"`
	EndLateMs   float64 `json:"end_late_ms"`
	Straggler   bool    `json:"straggler,omitempty"`
	Partial     bool    `json:"partial,omitempty"`
}
