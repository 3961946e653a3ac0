package document

import "maps"

// ExplainDocument is `objbench explain --json`: what a program did with
// object storage, recorded from the lab's side, and what to change.
type ExplainDocument struct {
	Envelope
	Explain Explain `json:"explain"`
}

// Explain is the body of an explain document. Per-object figures divide by
// Objects (objects moved: uploads and downloads completed); round trips
// are the client's, estimated from the server's times and the link's RTT.
type Explain struct {
	// Program is the command that ran, and its exit status.
	Program  []string `json:"program"`
	ExitCode int      `json:"exit_code"`
	RTTms    float64  `json:"rtt_ms"`
	// WallS is the program's run, start to exit; StorageS the part of it
	// with a connection being set up or a request in flight;
	// NotStorageS the rest (start-up, the program's own work, waits).
	WallS       float64 `json:"wall_s"`
	StorageS    float64 `json:"storage_s"`
	NotStorageS float64 `json:"not_storage_s"`
	Objects     int     `json:"objects"`
	// BytesUp and BytesDown are request and response bodies.
	BytesUp           int64   `json:"bytes_up"`
	BytesDown         int64   `json:"bytes_down"`
	Requests          int     `json:"requests"`
	RequestsPerObject float64 `json:"requests_per_object"`
	Errors            int     `json:"errors"`
	Connections       int     `json:"connections"`
	TLSHandshakes     int     `json:"tls_handshakes"`
	// ConnectionsPerObject and TLSHandshakesPerObject divide by Objects.
	ConnectionsPerObject   float64 `json:"connections_per_object"`
	TLSHandshakesPerObject float64 `json:"tls_handshakes_per_object"`
	// RoundTripsPerObject is the sum of RoundTripsByPhase: the round trips
	// one object cost, in the phases of `strategies` (connect, tls, send,
	// wait100, wait, recv).
	RoundTripsPerObject float64            `json:"round_trips_per_object"`
	RoundTripsByPhase   map[string]float64 `json:"round_trips_by_phase"`
	// MaxInFlight is the most requests in flight at once and MaxOpenConns
	// the most connections open at once, as the client saw them: a request
	// is in flight from half a round trip before it reached the server
	// until half a round trip after its answer left.
	MaxInFlight  int `json:"max_in_flight"`
	MaxOpenConns int `json:"max_open_conns"`
	// ServerMaxInFlight and ServerMaxOpenConns are the same at the
	// server, where requests a round trip apart rarely overlap.
	ServerMaxInFlight  int `json:"server_max_in_flight"`
	ServerMaxOpenConns int `json:"server_max_open_conns"`
	// ExpectedMisses counts 404 answers the program expected: a check
	// (or a first try) answered 404 and followed by the creation of what
	// was missing, as a HEAD before a create. They are not in Errors.
	ExpectedMisses int `json:"expected_misses"`
	// ExpectContinue counts requests sent with Expect: 100-continue.
	ExpectContinue int `json:"expect_continue"`
	// ExtraHeaders counts requests carrying each checksum or SDK-added
	// header (lower case names).
	ExtraHeaders map[string]int `json:"extra_headers"`
	// Operations counts requests by API operation (GetObject, PutObject...).
	Operations map[string]int `json:"operations"`
	// Protocols counts connections by protocol (h2, http/1.1).
	Protocols             map[string]int `json:"protocols,omitempty"`
	CostUSDPer1000Objects float64        `json:"cost_usd_per_1000_objects"`
	Cost                  *Cost          `json:"cost,omitempty"`
	Conns                 []ExplainConn  `json:"conns"`
	Findings              []Finding      `json:"findings"`
	// WhatIf is the recorded program re-timed under each fix: its
	// dependency graph (same connection, same thread of requests, the
	// program's own gaps kept) with the fix's durations.
	WhatIf []WhatIf `json:"what_if,omitempty"`
	// Problem says, in one line, why there is nothing to explain (no
	// request reached the lab); empty when there is.
	Problem string `json:"problem,omitempty"`
	// Source says who recorded the timeline: "lab" (the lab's servers),
	// "wire" (the program's packets on its real path, explain --real),
	// "pcap" (a capture, --pcap-in), "proxy" (a CONNECT tunnel, the
	// fallback where namespaces are unavailable). Empty in documents
	// written before it existed (the lab).
	Source string `json:"source,omitempty"`
	// Path says what carried the program's packets on the real path:
	// "kernel" (its own TCP and TLS end to end), "translator" (a
	// user-space stack at its namespace's edge ended its TCP connections
	// there), "proxy"; empty for the lab and a capture.
	Path string `json:"path,omitempty"`
	// PathNote says, in one line, what the source cannot show.
	PathNote string `json:"path_note,omitempty"`
}

// ExplainConn is one connection, its times in seconds since the program started.
type ExplainConn struct {
	ID  int    `json:"id"`
	API string `json:"api"`
	// OpenedS is when the client started it (the server's accept less the
	// handshake's one and a half round trips).
	OpenedS float64 `json:"opened_s"`
	// HandshakeRTTs are the round trips before its first request could
	// leave: TCP 1, TLS 1.3 1 (TLS 1.2 2).
	HandshakeRTTs float64 `json:"handshake_rtts"`
	TLSVersion    string  `json:"tls_version,omitempty"`
	ALPN          string  `json:"alpn,omitempty"`
	ClosedS       float64 `json:"closed_s"`
	// ClosedBy: client, idle-timeout, fault, lab-stopped, server, open.
	ClosedBy string           `json:"closed_by"`
	BytesIn  int64            `json:"bytes_in"`
	BytesOut int64            `json:"bytes_out"`
	Requests []ExplainRequest `json:"requests"`
	// Library is the client library its requests named in User-Agent
	// (boto3, aws-sdk-js, aws-sdk-go-v2, google-cloud-storage,
	// azure-storage-blob, curl, go-net/http); "" when none: the findings'
	// advice speaks its terms.
	Library string `json:"library,omitempty"`
	// Read says how its requests were read off the wire: "plain",
	// "decrypted" (with the program's TLS keys), "inferred" (HTTP/1.1
	// from its TLS records' direction and timing), "connection"
	// (connection facts only); empty for the lab's record.
	Read string `json:"read,omitempty"`
	// SNI, Cipher and Resumed are its TLS handshake as the wire showed it.
	SNI     string `json:"sni,omitempty"`
	Cipher  string `json:"cipher,omitempty"`
	Resumed string `json:"resumed,omitempty"`
	// DNSms is the name lookup before it, when the wire saw one.
	DNSms float64 `json:"dns_ms,omitempty"`
	// Client numbers the client (its pool) that opened the connection, as
	// the findings attribute it (from 1): connections opened while another
	// of the same API sat idle came from another client.
	Client int `json:"client,omitempty"`
}

// WhatIf is one scenario of the what-if model.
type WhatIf struct {
	// ID names the scenario (stable: reuse, no-expect, parallel-N, http2,
	// single-request-upload, rtt-Nms, and without-NAME for a finding
	// explain-NAME about requests the program need not send); Text says
	// what changes.
	ID   string `json:"id"`
	Text string `json:"text"`
	// WallS is the predicted wall time of the program, SaveS the recorded
	// wall time less it (seconds).
	WallS float64 `json:"wall_s"`
	SaveS float64 `json:"save_s"`
}

// ExplainRequest is one request, times in seconds since the program started
// (the server's clock).
type ExplainRequest struct {
	// ID is "CONN.N": the connection's id and the request's place on it
	// (from 1), as findings name it.
	ID        string `json:"id"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Operation string `json:"operation"`
	// Object is true when the request completed an object's upload or download.
	Object     bool    `json:"object"`
	Status     int     `json:"status"`
	BytesIn    int64   `json:"bytes_in"`
	BytesOut   int64   `json:"bytes_out"`
	ArrivedS   float64 `json:"arrived_s"`
	FirstByteS float64 `json:"first_byte_s"`
	DoneS      float64 `json:"done_s"`
	// Inferred is true for a request inferred from TLS records (no keys):
	// its method, path and status are unknown.
	Inferred bool `json:"inferred,omitempty"`
	// RequestID is the server's id for it (x-amz-request-id and the like).
	RequestID string `json:"request_id,omitempty"`
	// IdleBeforeS is the gap since the connection's previous exchange
	// (or its handshake) ended, less the one round trip a client needs to
	// see a response and send the next request: the client's own time.
	IdleBeforeS    float64 `json:"idle_before_s"`
	ExpectContinue bool    `json:"expect_continue,omitempty"`
	// Headers are the notable request headers it carried (lower case).
	Headers []string `json:"headers,omitempty"`
	// RoundTrips by phase, this request's share (connect and tls on the
	// first request of its connection).
	RoundTrips map[string]float64 `json:"round_trips"`
	// Key is the object it is about (bucket/key, container/blob), "" for a
	// request about a bucket or none: redundant requests are found by it.
	Key string `json:"key,omitempty"`
	// Range is its Range header (bytes=0-1023), or part=N for a GET of
	// one part (partNumber), when it had one.
	Range string `json:"range,omitempty"`
	// Invocation is the SDK's id of the operation, the same on each of its
	// attempts (amz-sdk-invocation-id, google-cloud-storage's
	// gccl-invocation-id), when it sent one: what pairs a throttled
	// request with its retry.
	Invocation string `json:"invocation,omitempty"`
}

func (d *ExplainDocument) finite() Doc {
	c := *d
	e := d.Explain
	e.RTTms, e.WallS, e.StorageS, e.NotStorageS = Finite(e.RTTms), Finite(e.WallS), Finite(e.StorageS), Finite(e.NotStorageS)
	e.RequestsPerObject, e.ConnectionsPerObject = Finite(e.RequestsPerObject), Finite(e.ConnectionsPerObject)
	e.TLSHandshakesPerObject, e.RoundTripsPerObject = Finite(e.TLSHandshakesPerObject), Finite(e.RoundTripsPerObject)
	e.CostUSDPer1000Objects = Finite(e.CostUSDPer1000Objects)
	e.RoundTripsByPhase = finiteMap(e.RoundTripsByPhase)
	e.ExtraHeaders, e.Operations, e.Protocols = maps.Clone(e.ExtraHeaders), maps.Clone(e.Operations), maps.Clone(e.Protocols)
	e.Conns = make([]ExplainConn, len(d.Explain.Conns))
	for i, cn := range d.Explain.Conns {
		cn.OpenedS, cn.ClosedS, cn.HandshakeRTTs = Finite(cn.OpenedS), Finite(cn.ClosedS), Finite(cn.HandshakeRTTs)
		rs := make([]ExplainRequest, len(cn.Requests))
		for j, r := range cn.Requests {
			r.ArrivedS, r.FirstByteS, r.DoneS, r.IdleBeforeS = Finite(r.ArrivedS), Finite(r.FirstByteS), Finite(r.DoneS), Finite(r.IdleBeforeS)
			r.RoundTrips = finiteMap(r.RoundTrips)
			rs[j] = r
		}
		cn.Requests = rs
		e.Conns[i] = cn
	}
	e.Findings, e.Cost = cleanFindings(e.Findings), cleanCost(e.Cost)
	e.WhatIf = make([]WhatIf, len(d.Explain.WhatIf))
	for i, w := range d.Explain.WhatIf {
		w.WallS, w.SaveS = Finite(w.WallS), Finite(w.SaveS)
		e.WhatIf[i] = w
	}
	if len(e.WhatIf) == 0 {
		e.WhatIf = nil
	}
	if e.Findings == nil {
		e.Findings = []Finding{}
	}
	c.Explain = e
	c.DurationS = Finite(c.DurationS)
	c.Options, c.Labels = maps.Clone(d.Options), maps.Clone(d.Labels)
	return &c
}

func finiteMap(m map[string]float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = Finite(v)
	}
	return out
}
