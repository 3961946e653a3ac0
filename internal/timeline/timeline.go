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
}
