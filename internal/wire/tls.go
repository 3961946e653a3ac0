package wire

import (
	"bytes"
	"crypto/tls"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// TLS record content types and handshake message types.
const (
	recCCS       = 20
	recAlert     = 21
	recHandshake = 22
	recAppData   = 23

	hsClientHello       = 1
	hsServerHello       = 2
	hsNewSessionTicket  = 4
	hsEncryptedExts     = 8
	hsFinished          = 20
	hsKeyUpdate         = 24
	maxRecord           = 1<<14 + 2048
	maxHandshakeMessage = 1 << 17
)

// helloRetry is the ServerHello random that marks a HelloRetryRequest.
var helloRetry = []byte{0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
	0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C}

// record is one TLS record as it crossed: its header, its payload (nil
// when it was counted, not kept) and the times of its first and last
// segments.
type record struct {
	hdr    [5]byte
	n      int // payload length
	data   []byte
	dir    int // kept while it waits for its keys
	t0, t1 time.Time
}

// framer cuts one direction's bytes into TLS records, keeping a record's
// payload only when keep says so (handshakes, and records to decrypt).
type framer struct {
	hdr    [5]byte
	nh     int
	left   int
	cur    record
	kept   bool
	broken bool
	buf    []byte // the kept payload's room, reused record after record
	// lost: the stream was joined mid-way (a capture begun after the
	// handshake) and the next record's start is sought, not assumed
	lost   bool
	resync bool // seek again after a header that is not one
}

// findRecord is where the first application data record's header in b
// begins; -1 for none.
func findRecord(b []byte) int {
	for i := 0; i+5 <= len(b); i++ {
		if b[i] == recAppData && b[i+1] == 3 && b[i+2] == 3 && int(b[i+3])<<8|int(b[i+4]) <= maxRecord {
			return i
		}
	}
	return -1
}

// feed cuts b into records and hands each whole one to done; a record's
// data is valid only during the call.
func (f *framer) feed(b []byte, t0, t1 time.Time, keep func(typ byte) bool, done func(*record)) {
	for len(b) > 0 && !f.broken {
		if f.lost {
			i := findRecord(b)
			if i < 0 {
				return
			}
			b, f.lost = b[i:], false
		}
		if f.nh < 5 {
			if f.nh == 0 {
				f.cur = record{t0: t0}
			}
			k := copy(f.hdr[f.nh:], b)
			f.nh += k
			b = b[k:]
			if f.nh < 5 {
				continue
			}
			f.cur.hdr = f.hdr
			f.cur.n = int(f.hdr[3])<<8 | int(f.hdr[4])
			if f.hdr[0] < recCCS || f.hdr[0] > recAppData+1 || f.hdr[1] != 3 || f.cur.n > maxRecord {
				if f.resync {
					f.lost, f.nh = true, 0
					continue
				}
				f.broken = true // not TLS (or a stream we lost track of)
				return
			}
			f.left = f.cur.n
			f.kept = keep(f.hdr[0])
			if f.kept {
				f.cur.data = f.buf[:0]
			}
		}
		k := min(f.left, len(b))
		if f.kept {
			f.cur.data = append(f.cur.data, b[:k]...)
		}
		f.left -= k
		b = b[k:]
		if f.left == 0 {
			f.cur.t1 = t1
			f.nh = 0
			done(&f.cur) // done copies what it keeps: the room is reused
			if f.kept {
				f.buf = f.cur.data[:0]
			}
			f.cur.data = nil
		}
	}
}

// hsReader joins one direction's handshake bytes into messages.
type hsReader struct {
	buf    []byte
	broken bool
}

func (h *hsReader) feed(b []byte, msg func(typ byte, body []byte)) {
	if h.broken {
		return
	}
	h.buf = append(h.buf, b...)
	for len(h.buf) >= 4 {
		n := int(h.buf[1])<<16 | int(h.buf[2])<<8 | int(h.buf[3])
		if n > maxHandshakeMessage {
			h.broken, h.buf = true, nil
			return
		}
		if len(h.buf) < 4+n {
			return
		}
		msg(h.buf[0], h.buf[4:4+n])
		h.buf = h.buf[4+n:]
	}
	if len(h.buf) == 0 {
		h.buf = nil // no message waiting: let the buffer go
	}
}

// hello is what the ClientHello and ServerHello say.
type hello struct {
	random     [32]byte
	sessionID  []byte
	alpn       []string
	sni        string
	version    uint16
	suite      uint16
	psk        bool   // pre_shared_key extension
	ticket     bool   // a non-empty session_ticket extension (TLS 1.2)
	ticketData []byte // its ticket
	retry      bool   // a HelloRetryRequest
}

// parseHello reads a ClientHello (client) or ServerHello.
func parseHello(body []byte, client bool) (hello, bool) {
	var h hello
	s := cryptobyte.String(body)
	var random, sid []byte
	if !s.ReadUint16(&h.version) || !s.ReadBytes(&random, 32) || !s.ReadUint8LengthPrefixed((*cryptobyte.String)(&sid)) {
		return h, false
	}
	copy(h.random[:], random)
	h.sessionID = append([]byte(nil), sid...)
	if client {
		var cs, comp cryptobyte.String
		if !s.ReadUint16LengthPrefixed(&cs) || !s.ReadUint8LengthPrefixed(&comp) {
			return h, false
		}
	} else {
		var comp uint8
		if !s.ReadUint16(&h.suite) || !s.ReadUint8(&comp) {
			return h, false
		}
		h.retry = bytes.Equal(random, helloRetry)
	}
	if s.Empty() {
		return h, true
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) {
		return h, false
	}
	for !exts.Empty() {
		var typ uint16
		var ext cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&ext) {
			return h, false
		}
		switch typ {
		case 0: // server_name
			var list cryptobyte.String
			if client && ext.ReadUint16LengthPrefixed(&list) {
				for !list.Empty() {
					var nt uint8
					var name cryptobyte.String
					if !list.ReadUint8(&nt) || !list.ReadUint16LengthPrefixed(&name) {
						break
					}
					if nt == 0 {
						h.sni = string(name)
					}
				}
			}
		case 16: // ALPN
			h.alpn = readALPN(ext)
		case 43: // supported_versions
			if !client {
				var v uint16
				if ext.ReadUint16(&v) {
					h.version = v
				}
			}
		case 41:
			h.psk = true
		case 35:
			h.ticket = len(ext) > 0
			h.ticketData = append([]byte(nil), ext...)
		}
	}
	return h, true
}

func readALPN(ext cryptobyte.String) []string {
	var list cryptobyte.String
	var out []string
	if !ext.ReadUint16LengthPrefixed(&list) {
		return nil
	}
	for !list.Empty() {
		var p cryptobyte.String
		if !list.ReadUint8LengthPrefixed(&p) {
			break
		}
		out = append(out, string(p))
	}
	return out
}

// ServerHelloFacts are what a ServerHello says in the clear: the TLS
// version, the cipher suite, and the ALPN protocol under TLS 1.2 (TLS 1.3
// sends its ALPN encrypted: "" there). A reader that sees records but no
// keys (explain's CONNECT tunnel) learns them from it.
type ServerHelloFacts struct{ Version, Cipher, ALPN string }

// ReadServerHello reads the ServerHello that begins body, a server's
// handshake record. It is false when body begins with no whole
// ServerHello, or with a HelloRetryRequest (the ServerHello comes later).
func ReadServerHello(body []byte) (ServerHelloFacts, bool) {
	if len(body) < 4 || body[0] != hsServerHello {
		return ServerHelloFacts{}, false
	}
	n := int(body[1])<<16 | int(body[2])<<8 | int(body[3])
	if len(body) < 4+n {
		return ServerHelloFacts{}, false
	}
	h, ok := parseHello(body[4:4+n], false)
	if !ok || h.retry {
		return ServerHelloFacts{}, false
	}
	return h.facts(), true
}

// facts are what a ServerHello h says in the clear.
func (h hello) facts() ServerHelloFacts {
	f := ServerHelloFacts{Version: versionName(h.version), Cipher: tls.CipherSuiteName(h.suite)}
	if len(h.alpn) > 0 {
		f.ALPN = h.alpn[0]
	}
	return f
}

// encryptedALPN reads the ALPN of TLS 1.3's EncryptedExtensions.
func encryptedALPN(body []byte) string {
	s := cryptobyte.String(body)
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) {
		return ""
	}
	for !exts.Empty() {
		var typ uint16
		var ext cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&ext) {
			return ""
		}
		if typ == 16 {
			if a := readALPN(ext); len(a) > 0 {
				return a[0]
			}
		}
	}
	return ""
}

func versionName(v uint16) string {
	switch v {
	case tls.VersionTLS13:
		return "1.3"
	case tls.VersionTLS12:
		return "1.2"
	case tls.VersionTLS11:
		return "1.1"
	case tls.VersionTLS10:
		return "1.0"
	}
	return ""
}
