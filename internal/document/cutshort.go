package document

import (
	"fmt"
	"strconv"
)

// CutShort says how a run that ended before its end was recovered from
// its journal: why it is known to have stopped, when its last journaled
// interval ended and what it covers. A run stopped by Ctrl-C has none
// (it saved itself); a run killed (SIGKILL, OOM, a pre-empted machine)
// or a shard's partial upload has one.
type CutShort struct {
	// Reason is why the run is known to have stopped, e.g. "process 4242
	// on host build-7 is gone", or for a shard's partial upload "partial:
	// uploaded while the shard ran".
	Reason string `json:"reason"`
	// LastIntervalEnd is when the last journaled interval ended (RFC 3339
	// with nanoseconds); empty when none was journaled.
	LastIntervalEnd string `json:"last_interval_end,omitempty"`
	// CoversS is the measured time the results cover, in seconds: every
	// finished step's wall time plus the journaled part of the step that
	// was running.
	CoversS float64 `json:"covers_s"`
	// Intervals is the number of journaled intervals (of every op).
	Intervals int `json:"intervals"`
	// Steps is the number of steps finished; a step cut short comes after
	// them, as far as its last journaled interval.
	Steps int `json:"steps"`
	// RecoveredAt is when the journal was made into this document.
	RecoveredAt string `json:"recovered_at,omitempty"`
}

// Sentence is the summaries' one line about a run cut short.
func (c *CutShort) Sentence() string {
	s := fmt.Sprintf("cut short (%s): covers %s s measured, %d finished step", c.Reason,
		strconv.FormatFloat(c.CoversS, 'f', 1, 64), c.Steps)
	if c.Steps != 1 {
		s += "s"
	}
	if c.LastIntervalEnd != "" {
		s += ", last interval ended " + c.LastIntervalEnd
	}
	return s
}
