package document

import "time"

// IdleProbe is one observation: a connection left idle for Idle, then
// reused by the next request or found dropped.
type IdleProbe struct {
	Round   int           `json:"round"`
	Idle    time.Duration `json:"idle"`
	Reused  bool          `json:"reused"`
	Skipped bool          `json:"skipped,omitempty"` // cut short: a shorter idle was already dropped
	Err     string        `json:"error,omitempty"`
}

// IdleResult is what objbench idle-timeout's search found (load.IdleSearch).
type IdleResult struct {
	// Lower is the longest idle that survived, Upper the shortest dropped;
	// Upper is 0 when nothing was dropped up to Max.
	Lower, Upper time.Duration
	Probes       []IdleProbe
	Wall         time.Duration
}

// Estimate is the middle of the bracket, or 0 when no timeout was found.
func (r IdleResult) Estimate() time.Duration {
	if r.Upper == 0 {
		return 0
	}
	return (r.Lower + r.Upper) / 2
}
