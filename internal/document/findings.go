package document

// Finding is one sentence objbench draws from a document: what it saw, the
// numbers behind it and, where there is one, what to change. Findings are
// ranked: the most severe first.
type Finding struct {
	// ID names the rule that made the finding (stable: tools may key on it).
	ID string `json:"id"`
	// Severity is "high", "warn" or "info".
	Severity string `json:"severity"`
	Text     string `json:"text"`
	// Evidence holds the numbers the sentence was made from.
	Evidence map[string]float64 `json:"evidence,omitempty"`
	// Conns and Requests name the connections (their ids) and requests
	// ("CONN.N") of an explained program the finding is about.
	Conns    []int    `json:"conns,omitempty"`
	Requests []string `json:"requests,omitempty"`
	// Confidence says how far the finding can be trusted: explain's
	// findings read patterns from timing, which a loaded machine blurs.
	Confidence *Confidence `json:"confidence,omitempty"`
}

// Confidence is how sure a finding is, what shows it and what would make
// it false, so that a reader can check it against the timeline.
type Confidence struct {
	// Level is "high" or "low"; a finding's text says so only when low.
	Level string `json:"level"`
	// Shown are the timeline's ids that show the pattern: connections
	// ("conn 3") and requests ("3.1").
	Shown []string `json:"shown_by"`
	// FalseIf says what would make the finding false.
	FalseIf string `json:"false_if"`
	// Priced is false when the what-if model cannot price the fix (the
	// finding then gives no saving rather than invent one).
	Priced bool `json:"priced"`
}

// Cost is what a document's requests cost at a provider's list prices, and
// what the workload would cost at scale.
type Cost struct {
	// Provider is the price table used (s3, gcs, azure); Prices names it.
	Provider    string `json:"provider"`
	Prices      string `json:"prices"`
	PriceSource string `json:"price_source"`
	PriceDate   string `json:"price_date"`
	Currency    string `json:"currency"`
	// Requests are the billed HTTP requests: those of successful
	// operations, plus one per failed operation.
	Requests    int64   `json:"requests"`
	RequestsUSD float64 `json:"requests_usd"`
	// EgressBytes are the bytes downloaded, billed as internet egress.
	EgressBytes int64   `json:"egress_bytes"`
	EgressUSD   float64 `json:"egress_usd"`
	// UploadBytes are the bytes uploaded and DataUSD the per-GB upload and
	// retrieval charges, where the class has them (S3 Express One Zone).
	UploadBytes int64   `json:"upload_bytes,omitempty"`
	DataUSD     float64 `json:"data_usd,omitempty"`
	TotalUSD    float64 `json:"total_usd"`
	Objects     int64   `json:"objects"`
	// PerMillionObjectsUSD is TotalUSD scaled to a million operations of the same mix.
	PerMillionObjectsUSD float64 `json:"per_million_objects_usd"`
	// PerHourUSD is the cost of an hour at the measured rate (operations
	// over the steps' wall time).
	PerHourUSD float64 `json:"per_hour_usd"`
	// WallS is the steps' wall time the hourly rate is measured over.
	WallS float64 `json:"wall_s"`
	// ByOp splits the cost by operation.
	ByOp []OpCost `json:"by_op,omitempty"`
}

// OpCost is the cost of one operation's requests.
type OpCost struct {
	Op          string  `json:"op"`
	Class       string  `json:"class"`
	Objects     int64   `json:"objects"`
	Requests    int64   `json:"requests"`
	RequestsUSD float64 `json:"requests_usd"`
	EgressUSD   float64 `json:"egress_usd"`
	// DataUSD is the per-GB upload or retrieval charge (S3 Express One Zone).
	DataUSD float64 `json:"data_usd,omitempty"`
	// PerMillionObjectsUSD is the cost of a million of these operations.
	PerMillionObjectsUSD float64 `json:"per_million_objects_usd"`
}
