package document

// StrategiesDocument is `objbench strategies --json`.
type StrategiesDocument struct {
	Envelope
	Strategies []StrategyRow `json:"strategies"`
	// Summary is the plain sentence naming the largest saving, per op.
	Summary []string `json:"summary"`
	// FirstVsLater is the first-vs-later table: GETs on a reused connection.
	FirstVsLater *FirstVsLater `json:"first_vs_later,omitempty"`
	// Findings are the ranked sentences analysis drew from the strategies.
	Findings []Finding `json:"findings,omitempty"`
	// Cost is what the requests cost at list prices.
	Cost *Cost `json:"cost,omitempty"`
}

// StrategyRow is one strategy for one op.
type StrategyRow struct {
	Strategy          string             `json:"strategy"`
	Description       string             `json:"description"`
	Op                string             `json:"op"`
	Objects           int                `json:"objects"`
	SizeBytes         int64              `json:"size_bytes"`
	Concurrency       int                `json:"concurrency"`
	WallS             float64            `json:"wall_s"`
	ObjectsPerS       float64            `json:"objects_per_s"`
	P50ms             float64            `json:"p50_ms"`
	P99ms             float64            `json:"p99_ms"`
	Connections       int64              `json:"connections"`
	TLSHandshakes     int64              `json:"tls_handshakes"`
	RequestsPerObject float64            `json:"requests_per_object"`
	RTTms             float64            `json:"rtt_ms"`
	RTTs              map[string]float64 `json:"rtts"`
	Speedup           float64            `json:"speedup"`
	Errors            int64              `json:"errors"`
	ErrorsByClass     map[string]int64   `json:"errors_by_class,omitempty"`
	Protocol          string             `json:"protocol,omitempty"`
	Available         bool               `json:"available"`
	Reason            string             `json:"reason,omitempty"`
	// CostPerMillionUSD is what a million objects cost this way at list
	// prices (requests, and egress for downloads).
	CostPerMillionUSD float64 `json:"cost_per_million_objects_usd,omitempty"`
}

// FirstVsLater compares each worker's first GET with its reused ones.
type FirstVsLater struct {
	Strategy string             `json:"strategy"`
	First    map[string]float64 `json:"first_ms"`
	Later    map[string]float64 `json:"later_ms"`
}
