package wire

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/objbench/objbench/internal/timeline"
)

// Bounds on the encrypted records kept while their keys have not been
// read yet (a program appends its key log as it goes).
const (
	maxPendingConn  = 4 << 20
	maxPendingTotal = 16 << 20
	maxSessions     = 10_000
)

// Decryption states of a TLS connection.
const (
	keysWaiting = iota // not found yet: records wait (bounded)
	keysOK             // decrypting
	keysNone           // given up: too much waited, an unknown suite, or a record that did not open
)

// httpReader reads requests from a connection's plaintext.
type httpReader interface {
	feed(dir int, b []byte, t0, t1 time.Time)
	requests() []*timeline.Request
}

// session is one TLS connection: its handshake, its decryption and the
// HTTP read from it, and the requests inferred from its records.
type session struct {
	c     *conn
	fr    [2]framer
	hs    [2]hsReader // handshake messages in the clear
	ehs   [2]hsReader // and encrypted (TLS 1.3's, TLS 1.2's Finished)
	ch    hello
	sh    hello
	gotCH bool
	gotSH bool
	v13   bool
	// encrypted says a direction's records are encrypted from now on
	// (TLS 1.2: after its ChangeCipherSpec).
	encrypted [2]bool
	// handshake round trips
	inHandshake, serverSpoke bool
	clientFinished           bool // TLS 1.3: the client's first encrypted record went by
	// midstream: the capture began after the handshake; application
	// records are read as they come, without keys
	midstream bool
	// decryption
	state    int
	cur, app [2]*recCipher
	inHS     [2]bool // TLS 1.3: the direction's records are still the handshake's
	update   [2]bool // a KeyUpdate was read: the next record uses the next keys
	pending  []record
	pendSize int
	scratch  []byte
	reader   httpReader
	// TLS 1.2's master secret and the session ids and tickets that
	// resume it (a key log has no line for a resumed session)
	master  []byte
	tickets []string
	inf     inferer
}

func newSession(c *conn) *session {
	s := &session{c: c}
	s.inHS = [2]bool{true, true}
	return s
}

func (s *session) feed(dir int, b []byte, t0, t1 time.Time) {
	s.fr[dir].feed(b, t0, t1, s.keep, func(r *record) { s.record(dir, r) })
}

// gap is a hole in a direction's bytes (a capture that lost packets):
// its records cannot be followed past it.
func (s *session) gap(dir int) {
	s.fr[dir].broken = true
	s.giveUp()
}

// keep says whether a record's payload is kept: always for the
// handshake's, for application data while it may be decrypted.
func (s *session) keep(typ byte) bool {
	return typ != recAppData || s.state != keysNone && !s.midstream
}

func (s *session) record(dir int, r *record) {
	typ := r.hdr[0]
	s.timing(dir, r)
	if !s.isEncrypted(dir, typ) {
		switch typ {
		case recHandshake:
			s.hs[dir].feed(r.data, func(m byte, body []byte) { s.clear(dir, m, body, r) })
		case recCCS:
			if !s.v13 {
				s.encrypted[dir] = true
			}
		}
		return
	}
	if typ == recAppData && s.appRecord(dir) {
		s.inf.record(dir, r.n-s.overhead(), r.t0, r.t1)
	}
	if s.midstream {
		return // no hello: no keys to find
	}
	switch s.state {
	case keysOK:
		s.decrypt(dir, r)
	case keysWaiting:
		if r.data == nil {
			return
		}
		if s.pendSize+r.n > maxPendingConn || s.c.d.pending+r.n > maxPendingTotal {
			s.giveUp()
			return
		}
		cp := *r
		cp.data = append([]byte(nil), r.data...)
		cp.dir = dir
		s.pending = append(s.pending, cp)
		s.pendSize += r.n
		s.c.d.pending += r.n
	}
}

// appRecord says whether an encrypted record of type application data
// is the application's: TLS 1.3 hides its handshake's last records
// (the server's flight, the client's Finished) under that type too.
func (s *session) appRecord(dir int) bool {
	if !s.v13 {
		return true
	}
	if dir == up && !s.clientFinished {
		s.clientFinished = true
		return false
	}
	return s.clientFinished
}

// overhead is what a record adds to its plaintext, for sizes read
// without keys.
func (s *session) overhead() int {
	switch {
	case s.v13:
		return TLS13Overhead
	case suites[s.sh.suite].chacha:
		return 16
	}
	return 24
}

func (s *session) isEncrypted(dir int, typ byte) bool {
	if s.v13 || s.midstream {
		return typ == recAppData
	}
	return s.encrypted[dir]
}

// timing stamps the handshake: the ClientHello, the client's next flight
// (Handshake), and the round trips until the client's first
// application data.
func (s *session) timing(dir int, r *record) {
	tc := s.c.tc
	if !s.inHandshake {
		if dir == up && r.hdr[0] == recHandshake && tc.Hello.IsZero() {
			s.inHandshake = true
		}
		return
	}
	if dir == down {
		s.serverSpoke = true
		return
	}
	if s.serverSpoke {
		tc.TLSRoundTrips++
		s.serverSpoke = false
		if tc.Handshake.IsZero() {
			tc.Handshake = r.t0
		}
	}
	if r.hdr[0] == recAppData {
		s.inHandshake = false
	}
}

// clear reads a handshake message sent in the clear.
func (s *session) clear(dir int, m byte, body []byte, r *record) {
	tc := s.c.tc
	switch {
	case dir == up && m == hsClientHello && !s.gotCH:
		h, ok := parseHello(body, true)
		if !ok {
			return
		}
		s.ch, s.gotCH = h, true
		tc.SNI = h.sni
		tc.Hello = r.t1
		s.inHandshake = true
	case dir == down && m == hsServerHello && !s.gotSH:
		h, ok := parseHello(body, false)
		if !ok || h.retry {
			return
		}
		s.sh, s.gotSH = h, true
		s.v13 = h.version == tls.VersionTLS13
		f := h.facts()
		tc.TLSVersion, tc.Cipher = f.Version, f.Cipher
		if f.ALPN != "" {
			tc.ALPN = f.ALPN
		}
		switch {
		case s.v13 && h.psk:
			tc.Resumed = "psk"
		case !s.v13 && len(h.sessionID) > 0 && bytes.Equal(h.sessionID, s.ch.sessionID) && s.ch.ticket:
			tc.Resumed = "ticket"
		case !s.v13 && len(h.sessionID) > 0 && bytes.Equal(h.sessionID, s.ch.sessionID):
			tc.Resumed = "session-id"
		}
		s.setKeys()
	case dir == down && m == hsNewSessionTicket:
		tc.TicketOffered = true
		if !s.v13 && len(body) > 6 {
			s.tickets = append(s.tickets, string(body[6:]))
			s.remember()
		}
	}
}

// setKeys makes the ciphers once the keys, both randoms and the suite
// are known.
func (s *session) setKeys() {
	if s.state != keysWaiting || !s.gotCH || !s.gotSH {
		return
	}
	st, ok := suites[s.sh.suite]
	if !ok {
		s.giveUp()
		return
	}
	k := s.c.d.keys[s.ch.random]
	s.c.d.waiting[s] = true // until the keys come
	if s.v13 {
		if k == nil || k.clientApp == nil || k.serverApp == nil {
			return
		}
		var err error
		for dir, sec := range [2][2][]byte{{k.clientHS, k.clientApp}, {k.serverHS, k.serverApp}} {
			if sec[0] != nil {
				if s.cur[dir], err = newCipher13(st, sec[0]); err != nil {
					s.giveUp()
					return
				}
			}
			if s.app[dir], err = newCipher13(st, sec[1]); err != nil {
				s.giveUp()
				return
			}
		}
		delete(s.c.d.waiting, s)
	} else {
		master := s.c.d.sessions[string(s.ch.ticketData)]
		if s.c.tc.Resumed == "session-id" {
			master = s.c.d.sessions[string(s.ch.sessionID)]
		}
		if k != nil && k.master != nil {
			master = k.master
		}
		if master == nil {
			return
		}
		if (k == nil || k.master == nil) && s.c.d.opts.DerivedKey != nil {
			s.c.d.opts.DerivedKey(fmt.Appendf(nil, "CLIENT_RANDOM %x %x\n", s.ch.random, master))
		}
		delete(s.c.d.waiting, s)
		c, sv, err := newCiphers12(st, master, s.ch.random, s.sh.random)
		if err != nil {
			s.giveUp()
			return
		}
		s.cur = [2]*recCipher{c, sv}
		s.master = master
		s.tickets = append(s.tickets, string(s.sh.sessionID))
		s.remember()
	}
	s.state = keysOK
	pend := s.pending
	s.dropPending()
	for i := range pend {
		if s.state != keysOK {
			break
		}
		s.decrypt(pend[i].dir, &pend[i])
	}
}

// release lets go of the buffers and parsers of a connection that has
// ended; records waiting for their keys stay (bounded), to be read if
// the keys come.
func (s *session) release() {
	s.fr = [2]framer{{broken: true}, {broken: true}}
	s.hs, s.ehs, s.scratch = [2]hsReader{}, [2]hsReader{}, nil
	switch {
	case s.state == keysOK && s.reader != nil:
		s.reader = doneReader(s.reader.requests())
	case s.state == keysNone:
		s.reader = nil
	}
}

// remember keeps a TLS 1.2 session's master secret by its session id and
// tickets, for the connections that resume it.
func (s *session) remember() {
	if s.master == nil {
		return
	}
	m := s.c.d.sessions
	if len(m) > maxSessions {
		clear(m)
	}
	for _, t := range s.tickets {
		if t != "" {
			m[t] = s.master
		}
	}
	s.tickets = nil
}

func (s *session) dropPending() {
	s.c.d.pending -= s.pendSize
	s.pending, s.pendSize = nil, 0
	delete(s.c.d.waiting, s)
}

func (s *session) giveUp() {
	s.state = keysNone
	s.dropPending()
}

// decrypt opens one record and reads what it carries.
func (s *session) decrypt(dir int, r *record) {
	hdr := r.hdr
	if s.update[dir] {
		next, err := s.cur[dir].update()
		if err != nil {
			s.giveUp()
			return
		}
		s.cur[dir], s.update[dir] = next, false
	}
	var plain []byte
	var inner byte
	var err error
	switch {
	case !s.v13 || !s.inHS[dir]:
		plain, inner, err = s.cur[dir].open(s.scratch[:0], hdr, r.data)
	default:
		// TLS 1.3's handshake: its keys if the log had them, else the
		// first record the application's keys open ends it.
		if s.cur[dir] != nil {
			plain, inner, err = s.cur[dir].open(s.scratch[:0], hdr, r.data)
		}
		if s.cur[dir] == nil || err != nil {
			p, in, err2 := s.app[dir].open(s.scratch[:0], hdr, r.data)
			if err2 != nil {
				// A handshake record whose keys we lack, or early data
				// (0-RTT, under a secret the decoder does not use).
				return
			}
			plain, inner, err = p, in, nil
			s.cur[dir], s.inHS[dir] = s.app[dir], false
		}
	}
	if err != nil {
		s.giveUp()
		return
	}
	if cap(plain) > cap(s.scratch) {
		s.scratch = plain[:0]
	}
	switch inner {
	case recHandshake:
		s.ehs[dir].feed(plain, func(m byte, body []byte) { s.encryptedHandshake(dir, m, body) })
	case recAppData:
		if s.reader == nil {
			if s.c.tc.ALPN == "h2" || dir == up && bytes.HasPrefix(plain, []byte("PRI ")) || dir == down && s.c.tc.ALPN == "" {
				s.reader = newH2()
			} else {
				s.reader = &h1{}
			}
		}
		s.reader.feed(dir, plain, r.t0, r.t1)
	}
}

func (s *session) encryptedHandshake(dir int, m byte, body []byte) {
	switch m {
	case hsEncryptedExts:
		if a := encryptedALPN(body); a != "" {
			s.c.tc.ALPN = a
		}
	case hsFinished:
		if s.v13 {
			s.cur[dir], s.inHS[dir] = s.app[dir], false
		}
	case hsNewSessionTicket:
		if dir == down {
			s.c.tc.TicketOffered = true
		}
	case hsKeyUpdate:
		if s.v13 && !s.inHS[dir] {
			s.update[dir] = true
		}
	}
}

// read says how the connection's requests were read, and gives them.
func (s *session) read() (string, []*timeline.Request) {
	switch {
	case s.state == keysOK && s.reader != nil:
		return "decrypted", s.reader.requests()
	case s.c.tc.ALPN == "h2" || s.c.tc.ALPN == "" && s.inf.h2:
		return "connection", nil
	}
	return "inferred", s.inf.reqs
}

// inferer reads HTTP/1.1 requests from application records' direction
// and timing: a client burst after the server's answer is a new request,
// the server's first record after it the first byte.
type inferer struct {
	reqs []*timeline.Request
	cur  *timeline.Request
	// the server's records since the client's last
	serverRecs, serverBytes int
	firstServer             time.Time
	// h2 is true when the client sent a 9-byte record: an HTTP/2
	// SETTINGS acknowledgement, never an HTTP/1.1 message.
	h2 bool
}

// TLS13Overhead is what a TLS 1.3 record adds to its plaintext (the AEAD
// tag and the inner content type), and HTTP2SettingsAck an HTTP/2 SETTINGS
// acknowledgement's plaintext (a frame header, no payload), which no
// HTTP/1.1 request's header is: without keys, a client record of that size
// tells HTTP/2 (here and in explain's CONNECT tunnel).
const (
	TLS13Overhead    = 17
	HTTP2SettingsAck = 9
)

// continueMax bounds the plaintext of an interim "100 Continue".
const continueMax = 40

func (in *inferer) record(dir, n int, t0, t1 time.Time) {
	if n <= 2 {
		return // an alert (TLS 1.3 hides its type): close_notify, not HTTP
	}
	q := in.cur
	if dir == down {
		if q == nil || t0.Before(q.Sent) {
			// Before any request, or begun before this one was sent:
			// not its answer (TLS 1.3 session tickets).
			return
		}
		if in.serverRecs == 0 {
			in.firstServer = t0
			q.FirstByte = t0
		}
		in.serverRecs++
		in.serverBytes += n
		q.BytesOut += int64(n)
		q.Done = t1
		return
	}
	if n == HTTP2SettingsAck {
		in.h2 = true
	}
	switch {
	case q != nil && in.serverRecs == 0:
		// the same burst: the request's body
		if q.BodySent.IsZero() {
			q.BodySent = t0
		}
		q.BodyDone = t1
		q.BytesIn += int64(n)
	case q != nil && in.serverRecs == 1 && in.serverBytes <= continueMax && q.BodySent.IsZero() && q.Continue.IsZero():
		// a short answer the client goes on after: 100 Continue
		q.Continue, q.Expect = in.firstServer, true
		q.FirstByte, q.Done, q.BytesOut = time.Time{}, time.Time{}, 0
		q.BodySent, q.BodyDone, q.BytesIn = t0, t1, int64(n)
	default:
		q = &timeline.Request{Proto: "HTTP/1.1", ContentLength: -1, Inferred: true, Sent: t0, Arrived: t1}
		in.reqs = append(in.reqs, q)
		in.cur = q
	}
	in.serverRecs, in.serverBytes = 0, 0
}
