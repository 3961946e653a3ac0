package wire

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// secrets are one connection's lines of a key log, by its ClientHello's
// random: TLS 1.2's master secret, TLS 1.3's handshake and first traffic
// secrets.
type secrets struct {
	master                                   []byte
	clientHS, serverHS, clientApp, serverApp []byte
}

// keyLog holds the secrets read so far.
type keyLog map[[32]byte]*secrets

// read adds the NSS key log lines of r; lines it does not know (comments,
// EXPORTER_SECRET, early data) are skipped.
func (k keyLog) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		cr, err1 := hex.DecodeString(f[1])
		secret, err2 := hex.DecodeString(f[2])
		if err1 != nil || err2 != nil || len(cr) != 32 || len(secret) == 0 {
			continue
		}
		s := k[[32]byte(cr)]
		if s == nil {
			s = &secrets{}
			k[[32]byte(cr)] = s
		}
		switch f[0] {
		case "CLIENT_RANDOM":
			s.master = secret
		case "CLIENT_HANDSHAKE_TRAFFIC_SECRET":
			s.clientHS = secret
		case "SERVER_HANDSHAKE_TRAFFIC_SECRET":
			s.serverHS = secret
		case "CLIENT_TRAFFIC_SECRET_0":
			s.clientApp = secret
		case "SERVER_TRAFFIC_SECRET_0":
			s.serverApp = secret
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("wire: reading the key log: %w", err)
	}
	return nil
}

// suite is what decrypting a cipher suite's records takes: its AEAD, key
// length and the hash of its key schedule.
type suite struct {
	keyLen int
	chacha bool
	sha384 bool
}

// suites are the AEAD suites the decoder decrypts, TLS 1.3's and 1.2's.
var suites = map[uint16]suite{
	0x1301: {keyLen: 16},               // TLS_AES_128_GCM_SHA256
	0x1302: {keyLen: 32, sha384: true}, // TLS_AES_256_GCM_SHA384
	0x1303: {keyLen: 32, chacha: true}, // TLS_CHACHA20_POLY1305_SHA256
	0xc02f: {keyLen: 16},               // ECDHE_RSA_WITH_AES_128_GCM_SHA256
	0xc02b: {keyLen: 16},               // ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
	0xc030: {keyLen: 32, sha384: true}, // ECDHE_RSA_WITH_AES_256_GCM_SHA384
	0xc02c: {keyLen: 32, sha384: true}, // ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
	0xcca8: {keyLen: 32, chacha: true}, // ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
	0xcca9: {keyLen: 32, chacha: true}, // ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
	0xccaa: {keyLen: 32, chacha: true}, // DHE_RSA_WITH_CHACHA20_POLY1305_SHA256
	0x009c: {keyLen: 16},               // RSA_WITH_AES_128_GCM_SHA256
	0x009d: {keyLen: 32, sha384: true}, // RSA_WITH_AES_256_GCM_SHA384
	0x009e: {keyLen: 16},               // DHE_RSA_WITH_AES_128_GCM_SHA256
	0x009f: {keyLen: 32, sha384: true}, // DHE_RSA_WITH_AES_256_GCM_SHA384
}

func (s suite) hash() func() hash.Hash {
	if s.sha384 {
		return sha512.New384
	}
	return sha256.New
}

func (s suite) aead(key []byte) (cipher.AEAD, error) {
	if s.chacha {
		return chacha20poly1305.New(key)
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// expandLabel is TLS 1.3's HKDF-Expand-Label (RFC 8446 section 7.1).
func expandLabel(h func() hash.Hash, secret []byte, label string, context []byte, n int) []byte {
	full := "tls13 " + label
	info := make([]byte, 0, 4+len(full)+len(context))
	info = binary.BigEndian.AppendUint16(info, uint16(n))
	info = append(info, byte(len(full)))
	info = append(info, full...)
	info = append(info, byte(len(context)))
	info = append(info, context...)
	out, err := hkdf.Expand(h, secret, string(info), n)
	if err != nil {
		panic(err) // only for lengths past 255 hashes, which no caller asks
	}
	return out
}

// prf12 is TLS 1.2's PRF, P_hash over HMAC (RFC 5246 section 5).
func prf12(h func() hash.Hash, secret []byte, label string, seed []byte, n int) []byte {
	ls := append([]byte(label), seed...)
	out := make([]byte, 0, n+64)
	mac := hmac.New(h, secret)
	mac.Write(ls)
	a := mac.Sum(nil)
	for len(out) < n {
		mac.Reset()
		mac.Write(a)
		mac.Write(ls)
		out = mac.Sum(out)
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(a[:0])
	}
	return out[:n]
}

// recCipher opens one direction's records: its AEAD, IV, next sequence
// number and, for TLS 1.3, the secret a KeyUpdate moves on from.
type recCipher struct {
	aead     cipher.AEAD
	iv       []byte
	seq      uint64
	v13      bool
	explicit bool // TLS 1.2 AES-GCM: an 8-byte explicit nonce leads each record
	s        suite
	secret   []byte
	nonce    [12]byte
	ad       [13]byte
}

// newCipher13 derives a TLS 1.3 direction's key and IV from its traffic
// secret.
func newCipher13(s suite, secret []byte) (*recCipher, error) {
	h := s.hash()
	a, err := s.aead(expandLabel(h, secret, "key", nil, s.keyLen))
	if err != nil {
		return nil, err
	}
	return &recCipher{aead: a, iv: expandLabel(h, secret, "iv", nil, 12), v13: true, s: s, secret: secret}, nil
}

// update is TLS 1.3's KeyUpdate: the next generation of the secret.
func (c *recCipher) update() (*recCipher, error) {
	h := c.s.hash()
	return newCipher13(c.s, expandLabel(h, c.secret, "traffic upd", nil, h().Size()))
}

// newCiphers12 derives TLS 1.2's client and server write keys from the
// master secret and both randoms.
func newCiphers12(s suite, master []byte, clientRandom, serverRandom [32]byte) (client, server *recCipher, err error) {
	ivLen := 4
	if s.chacha {
		ivLen = 12
	}
	seed := append(append([]byte{}, serverRandom[:]...), clientRandom[:]...)
	kb := prf12(s.hash(), master, "key expansion", seed, 2*s.keyLen+2*ivLen)
	ck, sk := kb[:s.keyLen], kb[s.keyLen:2*s.keyLen]
	civ, siv := kb[2*s.keyLen:2*s.keyLen+ivLen], kb[2*s.keyLen+ivLen:]
	ca, err := s.aead(ck)
	if err != nil {
		return nil, nil, err
	}
	sa, err := s.aead(sk)
	if err != nil {
		return nil, nil, err
	}
	return &recCipher{aead: ca, iv: civ, explicit: !s.chacha, s: s},
		&recCipher{aead: sa, iv: siv, explicit: !s.chacha, s: s}, nil
}

var errOpen = errors.New("wire: a record did not decrypt")

// open decrypts one record (header hdr, payload p) into dst's spare
// room; for TLS 1.3 it returns the inner content type. It moves the
// sequence number on only when the record opened.
func (c *recCipher) open(dst []byte, hdr [5]byte, p []byte) ([]byte, byte, error) {
	typ := hdr[0]
	if c.explicit {
		if len(p) < 8+c.aead.Overhead() {
			return nil, 0, errOpen
		}
		copy(c.nonce[:4], c.iv)
		copy(c.nonce[4:], p[:8])
		p = p[8:]
	} else {
		copy(c.nonce[:], c.iv)
		for i := range 8 {
			c.nonce[4+i] ^= byte(c.seq >> (56 - 8*i))
		}
	}
	var ad []byte
	if c.v13 {
		ad = hdr[:]
	} else {
		if len(p) < c.aead.Overhead() {
			return nil, 0, errOpen
		}
		binary.BigEndian.PutUint64(c.ad[:8], c.seq)
		c.ad[8], c.ad[9], c.ad[10] = hdr[0], hdr[1], hdr[2]
		binary.BigEndian.PutUint16(c.ad[11:], uint16(len(p)-c.aead.Overhead()))
		ad = c.ad[:]
	}
	out, err := c.aead.Open(dst, c.nonce[:c.aead.NonceSize()], p, ad)
	if err != nil {
		return nil, 0, errOpen
	}
	c.seq++
	if c.v13 {
		i := len(out) - 1
		for i >= 0 && out[i] == 0 {
			i--
		}
		if i < 0 {
			return nil, 0, errOpen
		}
		typ, out = out[i], out[:i]
	}
	return out, typ, nil
}
