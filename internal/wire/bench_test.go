package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// synthConn is one synthetic TLS 1.3 (AES-128-GCM) connection's packets:
// a handshake in the clear, a GET, and its response of size bytes in
// full records, cut in 1448-byte segments; and the key log that opens it.
func synthConn(tb testing.TB, size int) ([]Packet, []byte) { return synthConnUpdate(tb, size, false) }

// synthConnUpdate is synthConn whose server, with update, sends a
// KeyUpdate halfway through the response and the rest under the next
// keys.
func synthConnUpdate(tb testing.TB, size int, update bool) ([]Packet, []byte) {
	tb.Helper()
	var random [32]byte
	for i := range random {
		random[i] = byte(i)
	}
	cSecret, sSecret := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	keylog := fmt.Sprintf("CLIENT_TRAFFIC_SECRET_0 %x %x\nSERVER_TRAFFIC_SECRET_0 %x %x\n",
		random, cSecret, random, sSecret)
	cc, err := newCipher13(suites[0x1301], cSecret)
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := newCipher13(suites[0x1301], sSecret)
	if err != nil {
		tb.Fatal(err)
	}
	var sealAs func(c *recCipher, plain []byte, inner byte) []byte
	seal := func(c *recCipher, plain []byte) []byte { return sealAs(c, plain, recAppData) }
	sealAs = func(c *recCipher, plain []byte, inner byte) []byte {
		n := len(plain) + 1 + c.aead.Overhead()
		hdr := []byte{recAppData, 3, 3, byte(n >> 8), byte(n)}
		var nonce [12]byte
		copy(nonce[:], c.iv)
		for i := range 8 {
			nonce[4+i] ^= byte(c.seq >> (56 - 8*i))
		}
		c.seq++
		return c.aead.Seal(hdr, nonce[:], append(append([]byte(nil), plain...), inner), hdr)
	}
	hsRecord := func(typ byte, body []byte) []byte {
		msg := append([]byte{typ, 0, byte(len(body) >> 8), byte(len(body))}, body...)
		return append([]byte{recHandshake, 3, 1, byte(len(msg) >> 8), byte(len(msg))}, msg...)
	}
	ch := append([]byte{3, 3}, random[:]...)
	ch = append(ch, 0, 0, 2, 0x13, 0x01, 1, 0, 0, 0)
	sh := append([]byte{3, 3}, bytes.Repeat([]byte{9}, 32)...)
	sh = append(sh, 0, 0x13, 0x01, 0, 0, 6, 0, 43, 0, 2, 3, 4) // supported_versions: TLS 1.3
	up := [][]byte{hsRecord(hsClientHello, ch), seal(cc, []byte("GET /obj HTTP/1.1\r\nHost: bench\r\n\r\n"))}
	down := [][]byte{hsRecord(hsServerHello, sh), seal(sc, fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", size))}
	chunk := make([]byte, 1<<14-256)
	for left := size; left > 0; left -= len(chunk) {
		down = append(down, seal(sc, chunk[:min(left, len(chunk))]))
		if update && left <= size/2 && left+len(chunk) > size/2 {
			down = append(down, sealAs(sc, []byte{hsKeyUpdate, 0, 0, 1, 0}, recHandshake))
			if sc, err = sc.update(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	var ps []Packet
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(b []byte) { t = t.Add(10 * time.Microsecond); ps = append(ps, Packet{Time: t, Data: b}) }
	const cl, sv = "10.0.0.2", "10.0.0.1"
	cseq, sseq := uint32(1000), uint32(5000)
	add(tcpPacket(tb, cl, sv, 40000, 443, cseq, 0, "S", nil))
	add(tcpPacket(tb, sv, cl, 443, 40000, sseq, cseq+1, "SA", nil))
	cseq, sseq = cseq+1, sseq+1
	add(tcpPacket(tb, cl, sv, 40000, 443, cseq, sseq, "A", nil))
	send := func(recs [][]byte, fromClient bool) {
		stream := bytes.Join(recs, nil)
		for len(stream) > 0 {
			k := min(1448, len(stream))
			if fromClient {
				add(tcpPacket(tb, cl, sv, 40000, 443, cseq, sseq, "PA", stream[:k]))
				cseq += uint32(k)
			} else {
				add(tcpPacket(tb, sv, cl, 443, 40000, sseq, cseq, "PA", stream[:k]))
				sseq += uint32(k)
			}
			stream = stream[k:]
		}
	}
	send(up[:1], true)
	send(down[:1], false)
	send(up[1:], true)
	send(down[1:], false)
	add(tcpPacket(tb, cl, sv, 40000, 443, cseq, sseq, "FA", nil))
	add(tcpPacket(tb, sv, cl, 443, 40000, sseq, cseq+1, "FA", nil))
	return ps, []byte(keylog)
}

// withPort is p with the client's port set (the connection's copy).
func withPort(p Packet, port uint16, buf []byte) Packet {
	b := append(buf[:0], p.Data...)
	off := int(b[0]&0xf) * 4
	if b[12] == 10 && b[15] == 2 { // from the client
		binary.BigEndian.PutUint16(b[off:], port)
	} else {
		binary.BigEndian.PutUint16(b[off+2:], port)
	}
	return Packet{Time: p.Time, Data: b}
}

// BenchmarkDecode1GB feeds 1 GB of TLS 1.3 responses (64 connections of
// 16 MB), decrypting every record, and reports the heap the decoder
// held at its peak: headers and record boundaries are kept, never
// bodies, so it stays flat whatever the volume. OBJBENCH_WIRE_BENCH_GB
// feeds more to one decoder (10: the 10 GB).
func BenchmarkDecode1GB(b *testing.B) {
	const size = 16 << 20
	conns := 64
	if gb, err := strconv.Atoi(os.Getenv("OBJBENCH_WIRE_BENCH_GB")); err == nil && gb > 0 {
		conns = 64 * gb
	}
	ps, keylog := synthConn(b, size)
	b.SetBytes(int64(conns) * size)
	b.ReportAllocs()
	var peak uint64
	buf := make([]byte, 0, 2048)
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		d := NewDecoder(Options{})
		if err := d.AddKeyLog(bytes.NewReader(keylog)); err != nil {
			b.Fatal(err)
		}
		n := 0
		for c := range conns {
			for _, p := range ps {
				d.Packet(withPort(p, uint16(41000+c), buf))
				if n++; n%20000 == 0 {
					runtime.GC() // the live heap, not garbage yet to collect
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
				}
			}
		}
		res := d.Result()
		q := requestsOf(res)
		if len(q) != conns || q[0].BytesOut != size || res.Conns[0].Read != "decrypted" {
			b.Fatalf("%d requests, first %+v", len(q), q[0])
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
