// Package timeline is what happened on a path, as connections and the
// requests each carried, with their stamps: the record objbench explain
// reads, independent of who recorded it. Recorder records it from the lab
// servers' side.
package timeline

import (
	"net/http"
	"time"
)

// Conn is one connection: when it was accepted, its handshake, its close
// and who closed it, its bytes and the requests it carried. Times are the
// recorder's (see Recorder for the servers' side).
type Conn struct {
	ID  int
	API string
	// Accepted is when the server's stack handed the connection over (the
	// client's handshake ACK arrived); Hello when the TLS ClientHello was
	// read; Handshake when the client's next flight (its Finished) arrived.
	Accepted, Hello, Handshake time.Time
	// TLSVersion ("1.3", "1.2"; "" for plain HTTP) and ALPN ("h2", "http/1.1", "").
	TLSVersion, ALPN string
	// Closed is when the server saw the connection end; ClosedBy says who
	// ended it: "client", "idle-timeout", "fault", "lab-stopped", "server",
	// or "open" while it lasts.
	Closed   time.Time
	ClosedBy string
	// BytesIn and BytesOut are the bytes on the wire (TLS records included).
	BytesIn, BytesOut int64
	Requests          []*Request

	// What follows is filled by a record read from the wire (package
	// wire), from the client's side of the path; the lab's recorder
	// leaves it empty.

	// Client and Server are the connection's addresses ("10.0.0.2:40112").
	Client, Server string `json:",omitempty"`
	// Connect is when the client's SYN was seen (Accepted is its ACK of
	// the server's SYN-ACK).
	Connect time.Time `json:",omitzero"`
	// DNS is the lookup whose answer gave the server's address, the last
	// one answered before the SYN; nil when none was seen.
	DNS *Lookup `json:",omitempty"`
	// SNI is the ClientHello's server name; Cipher the suite the server
	// chose ("TLS_AES_128_GCM_SHA256").
	SNI, Cipher string `json:",omitempty"`
	// Resumed says how the handshake resumed a session ("psk" in TLS 1.3,
	// "session-id" or "ticket" in TLS 1.2), "" for a full handshake.
	Resumed string `json:",omitempty"`
	// TicketOffered is true when the server offered a session ticket.
	TicketOffered bool `json:",omitempty"`
	// TLSRoundTrips are the server flights the client waited on from its
	// ClientHello to its first application data (1 for TLS 1.3, 2 for a
	// full TLS 1.2 handshake, one more after a HelloRetryRequest).
	TLSRoundTrips int `json:",omitempty"`
	// CloseHow is "fin" or "rst", "" while open.
	CloseHow string `json:",omitempty"`
	// Read says how the requests were read off the wire: "plain" (HTTP
	// in the clear), "decrypted" (TLS with the program's keys),
	// "inferred" (HTTP/1.1 from the TLS records' direction and timing,
	// each request Inferred), "connection" (connection facts only: HTTP/2
	// or an unknown protocol without keys).
	Read string `json:",omitempty"`
}

// Lookup is one DNS question and its answer, as the client saw them.
type Lookup struct {
	// Name asked and Type ("A", "AAAA", "HTTPS"); Server is the resolver.
	Name, Type, Server string
	// Query is when the question left; Answer when the answer arrived
	// (zero: none seen).
	Query, Answer time.Time
	// Rcode is the answer's code ("NOERROR", "NXDOMAIN"); Addrs the
	// addresses it gave.
	Rcode string
	Addrs []string
}

// Request is one request on a connection, with its stamps.
type Request struct {
	Method, Path, Query, Proto string
	// Header holds the request's notable headers (checksums, Expect,
	// content type and length, copy source, upload markers).
	Header http.Header
	// ContentLength as the client declared it (-1 unknown).
	ContentLength int64
	// Arrived is when its headers were read; BodyDone when its body was
	// read to the end (zero when the handler did not read it); FirstByte
	// when the response's header was written; Done when the handler ended.
	Arrived, BodyDone, FirstByte, Done time.Time
	BytesIn, BytesOut                  int64
	Status                             int
	// Expect is true when it was sent with Expect: 100-continue.
	Expect bool

	// What follows is filled by a record read from the wire (package
	// wire); the lab's recorder leaves it empty.

	// Sent is when the request's head began (Arrived: when it ended);
	// BodySent when its body's first byte was sent; Continue when a 100
	// Continue arrived.
	Sent, BodySent, Continue time.Time `json:",omitzero"`
	// Host is the request's Host or :authority.
	Host string `json:",omitempty"`
	// RequestID is the server's id for the request (x-amz-request-id,
	// x-goog-request-id or x-guploader-uploadid, x-ms-request-id).
	RequestID string `json:",omitempty"`
	// ResponseHeader holds the response's notable headers (the request
	// id, Location of a redirect, Retry-After of a throttling answer).
	ResponseHeader http.Header `json:",omitempty"`
	// Stream is the HTTP/2 stream id (0 for HTTP/1.1).
	Stream uint32 `json:",omitempty"`
	// Inferred is true when the request was inferred from TLS records'
	// direction and timing, not read: it has no method, path or status,
	// and its sizes are the records' (with their overhead).
	Inferred bool `json:",omitempty"`
}
