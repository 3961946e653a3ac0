// Package wire reads a program's own traffic, as IP packets seen at the
// client's side of its path, into the same timeline the lab's servers
// record (package timeline): connections with their TCP, TLS and close,
// the requests each carried with their stamps, and the DNS lookups before
// them.
//
// The capture point is the program's side of the path (its namespace's
// edge), so every stamp is the program's view: what it sent is stamped
// when it left, what it received when it arrived. The lab records the
// same events at the server, half a round trip away; a caller comparing
// the two accounts for that one-way delay. The stamps map onto the
// timeline's fields by meaning:
//
//   - Conn.Connect: the client's SYN; Conn.Accepted: the client's ACK of
//     the server's SYN-ACK (the handshake's ACK, which the server's stack
//     hands over as an accepted connection).
//   - Conn.Hello: the ClientHello sent; Conn.Handshake: the client's next
//     flight after the server's answer (its Finished; with TLS 1.2 its key
//     exchange), one round trip later as on the server's side.
//   - Request.Sent: the first segment of the request's head; Arrived: its
//     last; BodySent: the body's first segment (after a 100 Continue, or
//     a Nagle stall); BodyDone: the body's last segment.
//   - Request.FirstByte: the first segment of the final response;
//     Done: its last byte.
//
// TLS is read three ways, said per connection in Conn.Read: decrypted
// with the program's key log (every request exact), inferred from the
// direction and timing of its records (HTTP/1.1 only; each request marked
// Inferred), or connection facts only (HTTP/2 without keys). Bodies are
// never kept: records are decrypted one at a time, their body bytes
// counted and dropped.
package wire

import (
	"io"
	"net/netip"
	"time"

	"github.com/objbench/objbench/internal/timeline"
)

// Packet is one IP packet (v4 or v6, from the IP header on) seen at a
// capture point at Time.
type Packet struct {
	Time time.Time
	Data []byte
}

// Options tune a Decoder.
type Options struct {
	// Client says which addresses are the program's (its namespace's);
	// nil: the side that sent the SYN is the client.
	Client func(netip.Addr) bool
}

// DNSLookup is one DNS question and its answer, as the program saw them.
type DNSLookup = timeline.Lookup

// Result is the timeline so far.
type Result struct {
	// Conns are the connections in the order their first packet was
	// seen, each with its requests, its DNS lookup and how it was read
	// (Conn.Read).
	Conns []*timeline.Conn
	// DNS are every lookup seen, in the order of their questions.
	DNS []DNSLookup
	// Packets and Bytes count what was fed; Undecoded the packets that
	// were neither TCP nor DNS (or not IP at all).
	Packets, Bytes, Undecoded int64
}

// Decoder turns packets into a timeline. Its methods are for one
// goroutine at a time.
type Decoder struct {
	opts Options
}

// NewDecoder starts an empty timeline.
func NewDecoder(opts Options) *Decoder {
	return &Decoder{opts: opts}
}

// Packet feeds one packet. It copies what it keeps: the caller may reuse
// p.Data.
func (d *Decoder) Packet(p Packet) {}

// AddKeyLog reads NSS key log lines (the SSLKEYLOGFILE format). It may be
// called again as the program appends more: records waiting for their
// connection's keys are decrypted as the keys arrive.
func (d *Decoder) AddKeyLog(r io.Reader) error { return nil }

// Result is the timeline so far: a copy the decoder does not change
// afterwards.
func (d *Decoder) Result() Result { return Result{} }
