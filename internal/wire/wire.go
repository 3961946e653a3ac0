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
//   - Conn.Closed: the first FIN or RST, ClosedBy its sender ("client",
//     "server"; "idle-timeout" for a server's FIN after a second with no
//     request outstanding), CloseHow which ("fin", "rst").
//
// Plain HTTP is read exactly (Conn.Read "plain"). TLS is read three
// ways, said per connection in Conn.Read: decrypted
// with the program's key log (every request exact), inferred from the
// direction and timing of its records (HTTP/1.1 only; each request marked
// Inferred), or connection facts only (HTTP/2 without keys). Bodies are
// never kept: records are decrypted one at a time, their body bytes
// counted and dropped.
package wire

import (
	"bytes"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
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
	// DerivedKey, when set, is handed each key log line the decoder
	// derived and the program's log lacks: a resumed TLS 1.2 session's
	// CLIENT_RANDOM line (its master secret is the session's it resumes,
	// which Wireshark does not carry across). A capture writer adds it
	// (WriteKeyLog) before the packet being fed, so the capture opens
	// decrypted in Wireshark too. The line is a secret, as the log is.
	DerivedKey func(line []byte)
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
	// were neither TCP nor DNS (or not IP at all); Gaps the holes in a
	// connection's bytes (packets the capture lost).
	Packets, Bytes, Undecoded, Gaps int64
}

// Bounds on what a decoder keeps: its record of connections and lookups
// (as the lab's recorder bounds its own), and the out-of-order segments
// it holds.
const (
	maxConns   = 200_000
	maxLookups = 100_000
	// Out-of-order segments wait in pages of 1900 bytes behind a hole
	// (a packet the path lost toward the program, until it is sent
	// again): as much as a receive window (Linux autotunes to 6 MB) for a
	// connection, 23 MB in all; past that the hole is skipped.
	maxPagesConn  = 4096
	maxPagesTotal = 12288
)

// Decoder turns packets into a timeline. Its methods are for one
// goroutine at a time.
type Decoder struct {
	opts    Options
	conns   []*conn
	byKey   map[connKey]*conn
	asm     *reassembly.Assembler
	keys    keyLog
	waiting map[*session]bool // sessions whose records wait for their keys
	// sessions are TLS 1.2 master secrets by session id and ticket
	sessions map[string][]byte
	pending  int // bytes they keep
	dns      dnsTable
	last     time.Time
	flushed  time.Time
	stats    Result
	// reused decoding layers
	ip4     layers.IPv4
	ip6     layers.IPv6
	tcp     layers.TCP
	udp     layers.UDP
	payload gopacket.Payload
	p4, p6  *gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
	ctx     asmContext
}

// doneReader is the requests of a connection that has ended, its
// parser's buffers let go.
type doneReader []*timeline.Request

func (doneReader) feed(int, []byte, time.Time, time.Time) {}
func (r doneReader) requests() []*timeline.Request        { return r }

// NewDecoder starts an empty timeline.
func NewDecoder(opts Options) *Decoder {
	d := &Decoder{opts: opts, byKey: map[connKey]*conn{}, keys: keyLog{}, waiting: map[*session]bool{}, sessions: map[string][]byte{}}
	pool := reassembly.NewStreamPool(factory{d})
	d.asm = reassembly.NewAssembler(pool)
	d.asm.MaxBufferedPagesPerConnection = maxPagesConn
	d.asm.MaxBufferedPagesTotal = maxPagesTotal
	d.p4 = gopacket.NewDecodingLayerParser(layers.LayerTypeIPv4, &d.ip4, &d.tcp, &d.udp, &d.payload)
	d.p6 = gopacket.NewDecodingLayerParser(layers.LayerTypeIPv6, &d.ip6, &d.tcp, &d.udp, &d.payload)
	d.p4.IgnoreUnsupported, d.p6.IgnoreUnsupported = true, true
	return d
}

// Packet feeds one packet. It copies what it keeps: the caller may reuse
// p.Data.
func (d *Decoder) Packet(p Packet) {
	d.stats.Packets++
	d.stats.Bytes += int64(len(p.Data))
	if p.Time.After(d.last) {
		d.last = p.Time
	}
	if len(p.Data) == 0 {
		d.stats.Undecoded++
		return
	}
	parser := d.p4
	if p.Data[0]>>4 == 6 {
		parser = d.p6
	}
	d.decoded = d.decoded[:0]
	_ = parser.DecodeLayers(p.Data, &d.decoded) // what it could not decode stays out of decoded
	var src, dst netip.Addr
	isTCP, isUDP := false, false
	for _, t := range d.decoded {
		switch t {
		case layers.LayerTypeIPv4:
			src, _ = netip.AddrFromSlice(d.ip4.SrcIP.To4())
			dst, _ = netip.AddrFromSlice(d.ip4.DstIP.To4())
			if d.ip4.Flags&layers.IPv4MoreFragments != 0 || d.ip4.FragOffset != 0 {
				d.stats.Undecoded++
				return // a fragment: TCP does not send them; DNS rarely
			}
		case layers.LayerTypeIPv6:
			src, _ = netip.AddrFromSlice(d.ip6.SrcIP)
			dst, _ = netip.AddrFromSlice(d.ip6.DstIP)
		case layers.LayerTypeTCP:
			isTCP = true
		case layers.LayerTypeUDP:
			isUDP = true
		}
	}
	switch {
	case isTCP && src.IsValid():
		d.tcpPacket(p.Time, src, dst)
	case isUDP && (d.udp.SrcPort == 53 || d.udp.DstPort == 53):
		if !d.dns.packet(p.Time, src, dst, &d.udp) {
			d.stats.Undecoded++
		}
	default:
		d.stats.Undecoded++
	}
	if d.last.Sub(d.flushed) > time.Second {
		// Holes older than 2 s are not going to be filled (the capture
		// lost those packets); connections silent for 10 minutes are
		// let go by the reassembly (not by the record).
		d.flushed = d.last
		d.asm.FlushWithOptions(reassembly.FlushOptions{T: d.last.Add(-2 * time.Second), TC: d.last.Add(-10 * time.Minute)})
	}
}

// AddKeyLog reads NSS key log lines (the SSLKEYLOGFILE format). It may be
// called again as the program appends more: records waiting for their
// connection's keys are decrypted as the keys arrive (as many as the
// decoder's bound on waiting records kept; call it before feeding the
// packets when the keys are at hand).
func (d *Decoder) AddKeyLog(r io.Reader) error {
	if err := d.keys.read(r); err != nil {
		return err
	}
	// In the order of the connections: a TLS 1.2 session resumed from an
	// earlier one takes its master secret.
	waiting := make([]*session, 0, len(d.waiting))
	for s := range d.waiting {
		waiting = append(waiting, s)
	}
	slices.SortFunc(waiting, func(a, b *session) int { return a.c.id - b.c.id })
	for _, s := range waiting {
		s.setKeys()
	}
	return nil
}

// Result is the timeline so far: a copy the decoder does not change
// afterwards.
func (d *Decoder) Result() Result {
	d.asm.FlushWithOptions(reassembly.FlushOptions{T: d.last.Add(-time.Second)})
	out := d.stats
	out.DNS = d.dns.result()
	out.Conns = make([]*timeline.Conn, 0, len(d.conns))
	for _, c := range d.conns {
		out.Conns = append(out.Conns, c.result(out.DNS))
	}
	return out
}

// connKey names a connection by its two ends.
type connKey struct{ client, server netip.AddrPort }

// conn is one TCP connection being read.
type conn struct {
	d       *Decoder
	id      int
	key     connKey
	tc      *timeline.Conn
	isn     uint32 // the client's SYN's sequence number
	synSeen bool
	synAck  time.Time
	fin     [2]bool
	rst     bool
	// lastData is when the last payload went by (for an idle close)
	lastData time.Time
	// what it carries: unknown until the client's first bytes
	kind  int
	tls   *session
	plain httpReader
	gaps  int
}

// Kinds of connection, from the client's first bytes.
const (
	kindUnknown = iota
	kindTLS
	kindHTTP
	kindOther
)

func (d *Decoder) tcpPacket(t time.Time, src, dst netip.Addr) {
	tcp := &d.tcp
	from, to := netip.AddrPortFrom(src, uint16(tcp.SrcPort)), netip.AddrPortFrom(dst, uint16(tcp.DstPort))
	c, dir := d.byKey[connKey{from, to}], up
	if c == nil {
		c, dir = d.byKey[connKey{to, from}], down
	}
	synOnly := tcp.SYN && !tcp.ACK
	if c != nil && synOnly && dir == up && (!c.synSeen || c.isn != tcp.Seq || c.tc.ClosedBy != "open") {
		c = nil // a new connection on the same ends (not the SYN sent again)
	}
	if c == nil {
		if len(d.conns) >= maxConns {
			d.stats.Undecoded++
			return
		}
		dir = up
		switch {
		case synOnly:
		case tcp.SYN && tcp.ACK:
			dir = down
		case d.opts.Client != nil && d.opts.Client(src):
		case d.opts.Client != nil && d.opts.Client(dst):
			dir = down
		case tcp.SrcPort < tcp.DstPort:
			dir = down // the well-known port is the server's
		}
		k := connKey{from, to}
		if dir == down {
			k = connKey{to, from}
		}
		c = &conn{d: d, id: len(d.conns) + 1, key: k, tc: &timeline.Conn{ID: len(d.conns) + 1,
			Client: k.client.String(), Server: k.server.String(), ClosedBy: "open"}}
		if !tcp.SYN {
			c.tc.Accepted = t // joined mid-connection
		}
		d.conns = append(d.conns, c)
		d.byKey[k] = c
	}
	switch {
	case synOnly && dir == up:
		if !c.synSeen {
			c.synSeen, c.isn, c.tc.Connect = true, tcp.Seq, t
		}
	case tcp.SYN && tcp.ACK && dir == down:
		if c.synAck.IsZero() {
			c.synAck = t
		}
	case tcp.ACK && dir == up && !c.synAck.IsZero() && c.tc.Accepted.IsZero():
		c.tc.Accepted = t
	}
	if len(tcp.Payload) > 0 {
		c.lastData = t
	}
	if (tcp.FIN || tcp.RST) && c.tc.Closed.IsZero() {
		c.tc.Closed = t
		c.tc.ClosedBy = [2]string{"client", "server"}[dir]
		c.tc.CloseHow = "fin"
		if tcp.RST {
			c.tc.CloseHow = "rst"
		}
		if dir == down && tcp.FIN && c.idle() && t.Sub(c.lastData) >= time.Second {
			// The server ended a connection that had been idle: its
			// keep-alive timeout.
			c.tc.ClosedBy = "idle-timeout"
		}
	}
	if tcp.FIN {
		c.fin[dir] = true
	}
	if tcp.RST {
		c.rst = true
	}
	// One context, reused: the reassembly reads it during the call (a
	// segment it queues keeps its own copy of the capture info).
	d.ctx = asmContext{ci: gopacket.CaptureInfo{Timestamp: t}, c: c, dir: dir}
	d.asm.AssembleWithContext(c.flow(dir), tcp, &d.ctx)
	if tcp.RST {
		c.release() // nothing after a reset is read
	}
}

// release lets go of what reading an ended connection took (buffers,
// parsers), keeping its record.
func (c *conn) release() {
	if c.plain != nil {
		c.plain = doneReader(c.plain.requests())
	}
	if c.tls != nil {
		c.tls.release()
	}
}

// flow is the reassembly's name for the connection: its id, so that a new
// connection on the same ends is a new stream.
func (c *conn) flow(dir int) gopacket.Flow {
	var a, b [16]byte
	for i := range 8 {
		a[i] = byte(uint64(c.id) >> (8 * i))
	}
	b = a
	a[15], b[15] = 1, 2
	if dir == down {
		a, b = b, a
	}
	return gopacket.NewFlow(layers.EndpointIPv6, a[:], b[:])
}

// idle says whether every request read has been answered.
func (c *conn) idle() bool {
	switch {
	case c.kind == kindHTTP:
		h, ok := c.plain.(*h1)
		return !ok || h.idle()
	case c.kind == kindTLS && c.tls != nil:
		if h, ok := c.tls.reader.(*h1); ok {
			return h.idle()
		}
		in := &c.tls.inf // without keys: the last request answered
		return in.cur == nil || in.serverRecs > 0
	}
	return true
}

// data is a direction's next bytes, in order, with the times their
// first and last segments were seen.
func (c *conn) data(dir int, b []byte, t0, t1 time.Time) {
	if dir == up {
		c.tc.BytesIn += int64(len(b))
	} else {
		c.tc.BytesOut += int64(len(b))
	}
	if c.kind == kindUnknown {
		switch {
		case len(b) >= 2 && b[0] == recHandshake && b[1] == 3 && dir == up:
			c.kind, c.tls = kindTLS, newSession(c)
		case c.tc.Connect.IsZero() && len(b) >= 5 && b[0] >= recCCS && b[0] <= recAppData && b[1] == 3:
			// A capture that began after the handshake: its records only.
			c.kind, c.tls = kindTLS, newSession(c)
			c.tls.midstream = true
			for i := range c.tls.fr {
				c.tls.fr[i].lost, c.tls.fr[i].resync = true, true
			}
		case dir == down:
			c.kind = kindOther // the server spoke first: not HTTP
		case bytes.HasPrefix(b, []byte("PRI ")):
			c.kind, c.plain = kindHTTP, newH2()
		case looksHTTP(b):
			c.kind, c.plain = kindHTTP, &h1{}
		default:
			c.kind = kindOther
		}
	}
	switch c.kind {
	case kindTLS:
		c.tls.feed(dir, b, t0, t1)
	case kindHTTP:
		c.plain.feed(dir, b, t0, t1)
	}
}

// looksHTTP says whether b starts as an HTTP/1 request line does.
func looksHTTP(b []byte) bool {
	i := bytes.IndexByte(b, ' ')
	if i <= 0 || i > 16 {
		return false
	}
	for _, ch := range b[:i] {
		if ch < 'A' || ch > 'Z' {
			return false
		}
	}
	return true
}

func (c *conn) gap(dir int) {
	c.gaps++
	c.d.stats.Gaps++
	switch c.kind {
	case kindTLS:
		c.tls.gap(dir)
	case kindHTTP:
		c.kind = kindOther // the requests past a hole cannot be read
	}
}

// result is a copy of the connection's record.
func (c *conn) result(lookups []DNSLookup) *timeline.Conn {
	cc := *c.tc
	var reqs []*timeline.Request
	switch c.kind {
	case kindTLS:
		cc.Read, reqs = c.tls.read()
	case kindHTTP:
		cc.Read, reqs = "plain", c.plain.requests()
	default:
		cc.Read = "connection"
	}
	cc.Requests = make([]*timeline.Request, len(reqs))
	for i, q := range reqs {
		qq := *q
		qq.Header = q.Header.Clone()
		qq.ResponseHeader = q.ResponseHeader.Clone()
		if qq.Header == nil {
			qq.Header = http.Header{}
		}
		cc.Requests[i] = &qq
	}
	cc.API = apiOf(&cc)
	at := cc.Connect
	if at.IsZero() {
		at = cc.Accepted
	}
	if l := lookupFor(lookups, c.key.server.Addr(), at); l != nil {
		ll := *l
		ll.Addrs = append([]string(nil), l.Addrs...)
		cc.DNS = &ll
	}
	return &cc
}

// apiOf names the storage API a connection spoke ("s3", "gcs",
// "azure", as the lab's endpoints are named) from its server name, its
// requests' hosts and headers and its answers' request ids; "" when none
// says.
func apiOf(c *timeline.Conn) string {
	hosts := []string{c.SNI}
	for _, q := range c.Requests {
		hosts = append(hosts, q.Host)
	}
	for _, h := range hosts {
		h = strings.ToLower(h)
		switch {
		case strings.Contains(h, "amazonaws.com"):
			return "s3"
		case strings.Contains(h, "googleapis.com"):
			return "gcs"
		case strings.Contains(h, ".core.windows.net"):
			return "azure"
		}
	}
	for _, q := range c.Requests {
		for _, h := range []http.Header{q.ResponseHeader, q.Header} {
			for k := range h {
				switch k = strings.ToLower(k); {
				case strings.HasPrefix(k, "x-amz-"):
					return "s3"
				case strings.HasPrefix(k, "x-goog-"), k == "x-guploader-uploadid":
					return "gcs"
				case strings.HasPrefix(k, "x-ms-"):
					return "azure"
				}
			}
		}
	}
	return ""
}

// asmContext carries a packet's time, connection and direction through
// the reassembly.
type asmContext struct {
	ci  gopacket.CaptureInfo
	c   *conn
	dir int
}

func (a *asmContext) GetCaptureInfo() gopacket.CaptureInfo { return a.ci }

// factory makes the reassembly's stream for a connection.
type factory struct{ d *Decoder }

func (f factory) New(_, _ gopacket.Flow, _ *layers.TCP, ac reassembly.AssemblerContext) reassembly.Stream {
	a := ac.(*asmContext)
	return &stream{c: a.c, first: a.dir}
}

// stream hands a connection's reassembled bytes to it, by direction.
type stream struct {
	c     *conn
	first int // the direction of the packet that opened the stream
}

func (s *stream) Accept(tcp *layers.TCP, _ gopacket.CaptureInfo, _ reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, _ reassembly.AssemblerContext) bool {
	if nextSeq == -1 && !tcp.SYN {
		*start = true // a capture that began mid-connection
	}
	return true
}

func (s *stream) ReassembledSG(sg reassembly.ScatterGather, _ reassembly.AssemblerContext) {
	rel, _, _, skip := sg.Info()
	dir := s.first
	if rel == reassembly.TCPDirServerToClient {
		dir = 1 - dir
	}
	if skip != 0 {
		s.c.gap(dir)
	}
	n, _ := sg.Lengths()
	if n == 0 {
		return
	}
	b := sg.Fetch(n)
	s.c.data(dir, b, sg.CaptureInfo(0).Timestamp, sg.CaptureInfo(n-1).Timestamp)
}

func (s *stream) ReassemblyComplete(reassembly.AssemblerContext) bool {
	s.c.release() // both ways closed: no more bytes to read
	return true
}
