package document

import "time"

// BusyShare is the share of a wire's packets delivered late over which a
// check row's miss is the machine's (its CPU was elsewhere), not the link
// model's: the lab's netem.BusyShare, the one threshold for every miss.
const BusyShare = 0.05

// RawClient names lab check's own unsigned net/http request in its rows.
const RawClient = "raw http"

// CheckRow is one phase of one lab check case: what the link model
// expects, in round trips and time, against the median measured. Expected
// is RTTs round trips plus Baseline, the same phase measured on the same
// server with the link bypassed: the machine's own processing time (TLS
// crypto, the server's handler), which no link model predicts.
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
	// (RawClient, the fields above), then each provider's SDK. The
	// network's TCP rows are measured by the raw request only.
	Clients []ClientCheck `json:"clients,omitempty"`
	// Late is the largest share of packets the wire delivered late while
	// any client measured this row: above BusyShare the machine's CPU, not
	// the model, may explain a miss.
	Late float64 `json:"late_fraction,omitempty"`
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

// Busy says the machine could not keep the wire's time while this row was
// measured, so a miss says more about the machine than about the model.
func (r CheckRow) Busy() bool { return r.Late > BusyShare }

// MissedBusy says the client missed while the machine was busy: the one
// rule behind a "busy" mark, a row's and the error's count alike.
func (c ClientCheck) MissedBusy() bool { return !c.Pass && c.Late > BusyShare }

// Measures are the row's clients, or, for the network's TCP rows measured
// by the raw request only, that request as the one client.
func (r CheckRow) Measures() []ClientCheck {
	if len(r.Clients) > 0 {
		return r.Clients
	}
	return []ClientCheck{{Client: RawClient, Expected: r.Expected, Measured: r.Measured, Tolerance: r.Tolerance, Pass: r.Pass, Late: r.Late}}
}

// MissedBusy says the row missed and every client that missed it was
// measured while the machine was busy: a miss lab check marks "busy".
func (r CheckRow) MissedBusy() bool {
	if r.Pass {
		return false
	}
	for _, c := range r.Measures() {
		if !c.Pass && !c.MissedBusy() {
			return false
		}
	}
	return true
}

// LabCheckMode is lab check's rows for one TLS mode on one link.
type LabCheckMode struct {
	TLS  string     `json:"tls"`
	Link string     `json:"link"`
	Rows []CheckRow `json:"rows"`
}

// BusyMisses counts the clients' misses in m measured while the machine
// was busy (ClientCheck.MissedBusy): the ones its table marks.
func (m LabCheckMode) BusyMisses() int {
	n := 0
	for _, r := range m.Rows {
		for _, c := range r.Measures() {
			if c.MissedBusy() {
				n++
			}
		}
	}
	return n
}

// LabCheckDocument is `objbench lab check --json`: each mode's rows and
// whether every row passed. Its fields are in the order the command has
// always written them.
type LabCheckDocument struct {
	LabCheck []LabCheckMode `json:"lab_check"`
	Pass     bool           `json:"pass"`
	Schema   string         `json:"schema"`
}

// NewLabCheck is lab check's document, tagged with the schema.
func NewLabCheck(modes []LabCheckMode, pass bool) *LabCheckDocument {
	return &LabCheckDocument{LabCheck: modes, Pass: pass, Schema: Schema}
}

// MissedBusyRows counts the rows that missed only while the machine was
// busy (CheckRow.MissedBusy), for lab check's error.
func (d *LabCheckDocument) MissedBusyRows() int {
	n := 0
	for _, m := range d.LabCheck {
		for _, r := range m.Rows {
			if r.MissedBusy() {
				n++
			}
		}
	}
	return n
}
