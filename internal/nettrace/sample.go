// Package nettrace is the only place objbench times the network. Its
// Transport is an http.RoundTripper handed to each provider SDK; every HTTP
// exchange made under a context from Begin is attributed to that operation,
// and Finish turns the exchanges into one Sample with every phase of the
// phase model (docs/design.md#the-phase-model) and the connection facts.
package nettrace

import "time"

// Phase indexes Sample.Phases.
type Phase int

// The phases of one request, in order.
const (
	DNS     Phase = iota // name lookup; zero for IP literals and reused connections
	Connect              // dial start → TCP established (in the lab, the handshake across its network)
	TLS                  // TLS handshake; zero for plain HTTP and reused connections
	Send                 // connection obtained → request written, minus Wait100
	Wait100              // Expect: 100-continue sent → 100 Continue received
	Wait                 // request written → first response byte
	Recv                 // first response byte → body fully read
	NumPhases
)

var phaseNames = [NumPhases]string{"dns", "connect", "tls", "send", "wait100", "wait", "recv"}

// PhaseNames are the phases' names in order, as the JSON contract keys
// them (phases_ms): the one list every table, rule and threshold walks.
// Each call returns a fresh slice, so callers may append to it.
func PhaseNames() []string { return append([]string(nil), phaseNames[:]...) }

// String returns the phase's name as used in the JSON contract.
func (p Phase) String() string {
	if p < 0 || p >= NumPhases {
		return "unknown"
	}
	return phaseNames[p]
}

// Phases lists all phases in order.
func Phases() []Phase {
	ps := make([]Phase, NumPhases)
	for i := range ps {
		ps[i] = Phase(i)
	}
	return ps
}

// Sample is one storage operation: usually one HTTP exchange, sometimes
// several (retries, multi-request uploads), whose phase durations are then
// summed. It is flat and serialisable; errors are kept as strings.
type Sample struct {
	Op     string `json:"op"`
	Key    string `json:"key"`
	Size   int64  `json:"size"`  // bytes the operation was asked to move
	Bytes  int64  `json:"bytes"` // response body bytes actually read
	Worker int    `json:"worker"`
	// Seq is the index of this request within its worker's life (0 = first).
	Seq int `json:"seq"`

	Start     time.Time `json:"start"`      // operation start
	FirstByte time.Time `json:"first_byte"` // first response byte of the last exchange
	End       time.Time `json:"end"`        // operation end, body fully read

	Phases [NumPhases]time.Duration `json:"phases"`

	Status   int    `json:"status"`
	ErrClass string `json:"error_class,omitempty"`
	Err      string `json:"error,omitempty"`
	Requests int    `json:"requests"` // HTTP exchanges made
	Retries  int    `json:"retries"`  // exchanges that failed and were tried again
	// Reconnects counts connections found dead when reused (dropped by the
	// server while idle) that the transport replaced without an error.
	Reconnects int `json:"reconnects"`
	// SilentRetries counts the times the transport sent a request again on
	// another connection (more than one GotConn for one request), which Go
	// does, unasked, for an idempotent request on a reused connection that
	// failed; they are counted on failed operations too.
	SilentRetries int `json:"silent_retries,omitempty"`
	// Throttled counts the exchanges the service answered 429 or 503 (its
	// way to say "slow down"), the last one included: a throttled answer
	// the SDK retried into a success is still the store pushing back.
	Throttled int `json:"throttled,omitempty"`

	// ExpectSent: a request of the operation carried "Expect:
	// 100-continue" (objbench's --expect-continue, or the SDK's own);
	// ExpectWaited: the client then held the body for "100 Continue".
	ExpectSent   bool `json:"expect_sent,omitempty"`
	ExpectWaited bool `json:"expect_waited,omitempty"`

	// Connection facts of the first exchange.
	Reused   bool          `json:"reused"`
	WasIdle  bool          `json:"was_idle"`
	IdleTime time.Duration `json:"idle_time"`
	// Facts of the last exchange.
	Proto      string `json:"protocol"`
	TLSVersion string `json:"tls_version,omitempty"`
	RemoteAddr string `json:"remote_addr,omitempty"`
}

// TTFB is operation start → first response byte (set-up included).
func (s *Sample) TTFB() time.Duration {
	if s.FirstByte.IsZero() {
		return 0
	}
	return s.FirstByte.Sub(s.Start)
}

// Total is operation start → body fully read.
func (s *Sample) Total() time.Duration { return s.End.Sub(s.Start) }

// OK reports whether the operation succeeded.
func (s *Sample) OK() bool { return s.Err == "" }
