package document

import (
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
)

// Lab check's rows: what objbench lab check measured of the lab's link
// model, as its JSON document carries them.

// RawClient names the check's own unsigned net/http request in check rows.
const RawClient = "raw http"

// CheckRow is one phase of one case: what the link model expects, in round
// trips and time, against the median measured. Expected is RTTs round trips
// plus Baseline, the same phase measured on the same server with the link
// bypassed: the machine's own processing time (TLS crypto, the server's
// handler), which no link model predicts.
type CheckRow struct {
	Case      string        `json:"case"`
	Phase     string        `json:"phase"`
	RTTs      float64       `json:"rtts"`
	Baseline  time.Duration `json:"baseline"`
	Expected  time.Duration `json:"expected"`
	Measured  time.Duration `json:"measured"`
	Tolerance time.Duration `json:"tolerance"`
	// Bound is "at most" when Expected is an upper bound rather than a target.
	Bound string `json:"bound,omitempty"`
	// Pass is true when the raw request and every client passed.
	Pass bool `json:"pass"`
	// Clients are the measures of each client: the raw net/http request
	// (RawClient, the fields above), then each provider's SDK (with
	// labcheck's Options.Open). The network's TCP rows are measured by the raw
	// request only.
	Clients []ClientCheck `json:"clients,omitempty"`
	// Late is the largest share of packets the wire delivered late while
	// any client measured this row (netem.Stats.Late): above
	// netem.BusyShare the machine's CPU, not the model, may explain a miss.
	Late float64 `json:"late_fraction,omitempty"`
}

// Busy says the machine could not keep the wire's time while this row was
// measured, so a miss says more about the machine than about the model.
func (r CheckRow) Busy() bool { return r.Late > netem.BusyShare }

// MissedBusy says the row missed and every client that missed it was
// measured while the machine was busy (ClientCheck.MissedBusy): a miss
// lab check marks "busy".
func (r CheckRow) MissedBusy() bool {
	if r.Pass {
		return false
	}
	for _, c := range r.ClientChecks() {
		if !c.Pass && !c.MissedBusy() {
			return false
		}
	}
	return true
}

// ClientChecks are the row's measures per client: Clients, or for the
// network's TCP rows, which the raw request alone measures, the row's own
// as RawClient's.
func (r CheckRow) ClientChecks() []ClientCheck {
	if len(r.Clients) > 0 {
		return r.Clients
	}
	return []ClientCheck{{Client: RawClient, Expected: r.Expected, Measured: r.Measured, Tolerance: r.Tolerance, Pass: r.Pass, Late: r.Late}}
}

// ClientCheck is one client's measure of a check row: the same case made
// through a provider's SDK, against the same link model, with its own
// baseline (the SDK's own processing, and the server behind that API).
type ClientCheck struct {
	Client    string        `json:"client"`
	Baseline  time.Duration `json:"baseline"`
	Expected  time.Duration `json:"expected"`
	Measured  time.Duration `json:"measured"`
	Tolerance time.Duration `json:"tolerance"`
	Pass      bool          `json:"pass"`
	// Late is the share of packets the wire delivered late while this
	// client measured the row (CheckRow.Late).
	Late float64 `json:"late_fraction,omitempty"`
}

// MissedBusy says this client missed the row while the machine was busy:
// over netem.BusyShare of the wire's packets came late, so the miss may be
// the machine's, not the link model's. The one rule lab check's table, its
// error and the rows' MissedBusy count busy misses by.
func (c ClientCheck) MissedBusy() bool { return !c.Pass && c.Late > netem.BusyShare }
