package document

// RateStep is one rate of an open loop's steps (or one segment of a ramp):
// what the schedule offered in it and what came of it. An operation belongs
// to the step its intended start fell in, whenever it finished; goodput is
// of the successes that finished in the step's later half.
type RateStep struct {
	// OfferedOpsPerS is the rate the step offered (an op of a mix: its
	// share); StartS and EndS its part of the schedule, from the result's
	// start.
	OfferedOpsPerS float64 `json:"offered_ops_per_s"`
	StartS         float64 `json:"start_s"`
	EndS           float64 `json:"end_s"`
	Count          int64   `json:"count"`
	Errors         int64   `json:"errors"`
	// GoodputOpsPerS and GoodputMBPerS are the successful operations that
	// finished in the step's later half (whichever step intended them),
	// and their bytes in MB (10^6), per second of it: a store's burst
	// allowance, spent as a step begins, is not its rate.
	GoodputOpsPerS float64 `json:"goodput_ops_per_s"`
	GoodputMBPerS  float64 `json:"goodput_mb_per_s"`
	// Requests are the HTTP exchanges of the step's operations, failed
	// ones included; Throttled those the store answered 429 or 503, and
	// ThrottledShare the fraction of Requests they are.
	Requests       int64   `json:"requests"`
	Throttled      int64   `json:"throttled"`
	ThrottledShare float64 `json:"throttled_share"`
	// Retries are the exchanges the client's SDK tried again.
	Retries int64 `json:"retries"`
	// TotalMs is the total latency of the successful operations.
	TotalMs Dist `json:"total_ms"`
	// ThrottledByPrefix counts throttled answers by key prefix (the key up
	// to its last "/"; "" for prefixes past the 64 counted by name).
	ThrottledByPrefix map[string]int64 `json:"throttled_by_prefix,omitempty"`
}

// Knee is where a store pushed back as an open loop's rate stepped up:
// the first step whose goodput fell short of its offered rate by a clear
// margin while the throttled share rose (see analysis.FindKnee).
type Knee struct {
	// Found is false when every step was carried: CarriedOpsPerS then says
	// up to what rate.
	Found bool `json:"found"`
	// Step indexes rate_steps: the first step that was pushed back.
	Step int `json:"step"`
	// RateOpsPerS is the rate where the store pushed back: the goodput it
	// settled at, bounded by the highest rate carried in full below the
	// knee and the first one that was not.
	RateOpsPerS float64 `json:"rate_ops_per_s"`
	// GoodputOpsPerS is the goodput the store settled at past the knee
	// (the median of the steps from it on).
	GoodputOpsPerS float64 `json:"goodput_ops_per_s"`
	// CarriedOpsPerS is the highest offered rate carried in full before
	// the knee (or at all, when none was found).
	CarriedOpsPerS float64 `json:"carried_ops_per_s"`
	// ThrottledShare is the share of answers throttled at the knee's step.
	ThrottledShare float64 `json:"throttled_share"`
	// HotPrefix is the prefix with the most throttled answers from the
	// knee on, HotPrefixShare its share of them, and ThrottledPrefixes
	// how many prefixes had any.
	HotPrefix         string  `json:"hot_prefix,omitempty"`
	HotPrefixShare    float64 `json:"hot_prefix_share,omitempty"`
	ThrottledPrefixes int     `json:"throttled_prefixes"`
}
