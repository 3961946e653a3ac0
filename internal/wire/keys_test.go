package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The key schedule against published vectors: RFC 8448's handshake
// traffic keys (TLS 1.3, section 3) and the TLS 1.2 PRF's SHA-256 vector.
func TestKeySchedule(t *testing.T) {
	for _, c := range []struct{ name, secret, key, iv string }{
		{"server handshake", "b6 7b 7d 69 0c c1 6c 4e 75 e5 42 13 cb 2d 37 b4 e9 c9 12 bc de d9 10 5d 42 be fd 59 d3 91 ad 38",
			"3f ce 51 60 09 c2 17 27 d0 f2 e4 e8 6e e4 03 bc", "5d 31 3e b2 67 12 76 ee 13 00 0b 30"},
		{"client handshake", "b3 ed db 12 6e 06 7f 35 a7 80 b3 ab f4 5e 2d 8f 3b 1a 95 07 38 f5 2e 96 00 74 6a 0e 27 a5 5a 21",
			"db fa a6 93 d1 76 2c 5b 66 6a f5 d9 50 25 8d 01", "5b d3 c7 1b 83 6e 0b 76 bb 73 26 5f"},
	} {
		secret := unhex(t, c.secret)
		if k := expandLabel(sha256.New, secret, "key", nil, 16); !bytes.Equal(k, unhex(t, c.key)) {
			t.Errorf("%s key %x, RFC 8448 %s", c.name, k, c.key)
		}
		if iv := expandLabel(sha256.New, secret, "iv", nil, 12); !bytes.Equal(iv, unhex(t, c.iv)) {
			t.Errorf("%s iv %x, RFC 8448 %s", c.name, iv, c.iv)
		}
	}
	out := prf12(sha256.New, unhex(t, "9b be 43 6b a9 40 f0 17 b1 76 52 84 9a 71 db 35"), "test label",
		unhex(t, "a0 ba 9f 93 6c da 31 18 27 a6 f7 96 ff d5 19 8c"), 100)
	want := unhex(t, "e3 f2 29 ba 72 7b e1 7b 8d 12 26 20 55 7c d4 53 c2 aa b2 1d 07 c3 d4 95 32 9b 52 d4 e6 1e db 5a"+
		"6b 30 17 91 e9 0d 35 c9 c9 a4 6b 4e 14 ba f9 af 0f a0 22 f7 07 7d ef 17 ab fd 37 97 c0 56 4b ab"+
		"4f bc 91 66 6e 9d ef 9b 97 fc e3 4f 79 67 89 ba a4 80 82 d1 22 ee 42 c5 a7 2e 5a 51 10 ff f7 01"+
		"87 34 7b 66")
	if !bytes.Equal(out, want) {
		t.Errorf("TLS 1.2 PRF:\n got %x\nwant %x", out, want)
	}
}

// Key log lines: the labels it knows, comments and junk skipped.
func TestKeyLogRead(t *testing.T) {
	cr := strings.Repeat("ab", 32)
	log := "# a comment\nCLIENT_RANDOM " + cr + " " + strings.Repeat("01", 48) + "\n" +
		"CLIENT_TRAFFIC_SECRET_0 " + cr + " " + strings.Repeat("02", 32) + "\n" +
		"SERVER_TRAFFIC_SECRET_0 zz " + strings.Repeat("03", 32) + "\n" + "EXPORTER_SECRET " + cr + " 04\n" + "junk\n"
	k := keyLog{}
	if err := k.read(strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	s := k[[32]byte(unhex(t, cr))]
	if len(k) != 1 || s == nil || len(s.master) != 48 || len(s.clientApp) != 32 || s.serverApp != nil {
		t.Fatalf("read %d randoms: %+v", len(k), s)
	}
}

// Keys that come after the packets open the records kept waiting for
// them, up to the bound; past it the connection is read without keys
// and nothing stays kept.
func TestLateKeys(t *testing.T) {
	for _, c := range []struct {
		size int
		want string
	}{{1 << 20, "decrypted"}, {maxPendingConn + 1<<20, "inferred"}} {
		ps, keylog := synthConn(t, c.size)
		d := NewDecoder(Options{})
		for _, p := range ps {
			d.Packet(p)
		}
		if err := d.AddKeyLog(bytes.NewReader(keylog)); err != nil {
			t.Fatal(err)
		}
		res := d.Result()
		if len(res.Conns) != 1 || res.Conns[0].Read != c.want {
			t.Fatalf("%d bytes: read %q, want %q", c.size, res.Conns[0].Read, c.want)
		}
		if c.want == "decrypted" && (len(res.Conns[0].Requests) != 1 || res.Conns[0].Requests[0].BytesOut != int64(c.size)) {
			t.Errorf("%d bytes: requests %+v", c.size, res.Conns[0].Requests)
		}
		if d.pending != 0 || len(d.waiting) != 0 {
			t.Errorf("%d bytes: %d bytes and %d sessions still waiting", c.size, d.pending, len(d.waiting))
		}
	}
}

// A TLS 1.3 KeyUpdate moves the direction on to the next keys: the
// response reads whole across it.
func TestKeyUpdate(t *testing.T) {
	const size = 200000
	ps, keylog := synthConnUpdate(t, size, true)
	d := NewDecoder(Options{})
	if err := d.AddKeyLog(bytes.NewReader(keylog)); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		d.Packet(p)
	}
	res := d.Result()
	if c := res.Conns[0]; c.Read != "decrypted" || len(c.Requests) != 1 || c.Requests[0].BytesOut != size {
		t.Fatalf("read %q, requests %+v", c.Read, c.Requests)
	}
}
