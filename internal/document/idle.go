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

// IdleTimeoutDocument is `objbench idle-timeout --json`: the search's
// bracket and verdict, in seconds, with every probe.
type IdleTimeoutDocument struct {
	Schema   string          `json:"schema"`
	Target   TargetInfo      `json:"target"`
	Lab      *LabInfo        `json:"lab,omitempty"`
	Found    bool            `json:"found"`
	TimeoutS float64         `json:"idle_timeout_s"`
	LowerS   float64         `json:"lower_s"`
	UpperS   float64         `json:"upper_s"`
	WallS    float64         `json:"wall_s"`
	Probes   []IdleProbeInfo `json:"probes"`
}

// IdleProbeInfo is one probe as the document writes it.
type IdleProbeInfo struct {
	Round   int     `json:"round"`
	IdleS   float64 `json:"idle_s"`
	Reused  bool    `json:"reused"`
	Skipped bool    `json:"skipped,omitempty"`
	Err     string  `json:"error,omitempty"`
}

// NewIdleTimeout is the search's document, tagged with the schema.
func NewIdleTimeout(target TargetInfo, lab *LabInfo, res IdleResult) *IdleTimeoutDocument {
	d := &IdleTimeoutDocument{Schema: Schema, Target: target, Lab: lab, Found: res.Upper > 0,
		TimeoutS: res.Estimate().Seconds(), LowerS: res.Lower.Seconds(), UpperS: res.Upper.Seconds(), WallS: res.Wall.Seconds()}
	for _, p := range res.Probes {
		d.Probes = append(d.Probes, IdleProbeInfo{p.Round, p.Idle.Seconds(), p.Reused, p.Skipped, p.Err})
	}
	return d
}
