package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// A capture whose packets come out of order, twice (retransmissions) or
// whose first packets are missing still reads to the same requests.
func TestReassemblyDisorder(t *testing.T) {
	r := runClient(t, tlsCases[3])
	want := requestsOf(decode(t, r, true))
	disorder := func(ps []Packet) []Packet {
		out := make([]Packet, 0, len(ps)*2)
		for i := 0; i < len(ps); i++ {
			switch {
			case i%7 == 3 && i+1 < len(ps):
				out = append(out, ps[i+1], ps[i]) // swapped
				i++
			case i%11 == 5:
				out = append(out, ps[i], ps[i]) // sent twice
			default:
				out = append(out, ps[i])
			}
		}
		return out
	}
	for name, ps := range map[string][]Packet{"disorder": disorder(r.packets)} {
		res := decode(t, run{packets: ps, keylog: r.keylog}, true)
		got := requestsOf(res)
		if len(got) != len(want) {
			t.Fatalf("%s: %d requests, in order %d", name, len(got), len(want))
		}
		for i, q := range got {
			if q.Method != want[i].Method || q.Path != want[i].Path || q.Status != want[i].Status || q.BytesOut != want[i].BytesOut {
				t.Errorf("%s: request %d: %s %s %d %d bytes, in order %s %s %d %d", name, i, q.Method, q.Path, q.Status, q.BytesOut,
					want[i].Method, want[i].Path, want[i].Status, want[i].BytesOut)
			}
		}
		if res.Gaps != 0 {
			t.Errorf("%s: %d gaps, want none", name, res.Gaps)
		}
	}
}

// udpPacket builds a DNS message as an IPv4 packet.
func udpPacket(t testing.TB, src, dst string, sport, dport int, msg *layers.DNS) []byte {
	t.Helper()
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: net.ParseIP(src).To4(), DstIP: net.ParseIP(dst).To4()}
	udp := &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)}
	_ = udp.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, udp, msg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tcpPacket builds a TCP segment as an IPv4 or IPv6 packet.
func tcpPacket(t testing.TB, src, dst string, sport, dport int, seq, ack uint32, flags string, payload []byte) []byte {
	t.Helper()
	var ip gopacket.SerializableLayer = &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.ParseIP(src).To4(), DstIP: net.ParseIP(dst).To4()}
	if net.ParseIP(src).To4() == nil {
		ip = &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: net.ParseIP(src), DstIP: net.ParseIP(dst)}
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(sport), DstPort: layers.TCPPort(dport), Seq: seq, Ack: ack, Window: 65535}
	for _, f := range flags {
		switch f {
		case 'S':
			tcp.SYN = true
		case 'A':
			tcp.ACK = true
		case 'F':
			tcp.FIN = true
		case 'R':
			tcp.RST = true
		case 'P':
			tcp.PSH = true
		}
	}
	_ = tcp.SetNetworkLayerForChecksum(ip.(gopacket.NetworkLayer))
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, tcp, gopacket.Payload(payload)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A lookup's answer is matched to the connection to the address it gave;
// a plain HTTP exchange ended by the server's reset says so; a
// connection the server closes after a second idle is its idle timeout.
func TestDNSAndCloses(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	q := &layers.DNS{ID: 7, RD: true, Questions: []layers.DNSQuestion{{Name: []byte("bucket.example"), Type: layers.DNSTypeA, Class: layers.DNSClassIN}}}
	a := &layers.DNS{ID: 7, QR: true, RD: true, RA: true, Questions: q.Questions, Answers: []layers.DNSResourceRecord{
		{Name: []byte("bucket.example"), Type: layers.DNSTypeA, Class: layers.DNSClassIN, TTL: 5, IP: net.ParseIP("192.0.2.10").To4()}}}
	cl, sv, res := "10.0.0.2", "192.0.2.10", "10.0.0.53"
	cl6, sv6 := "2001:db8::2", "2001:db8::10"
	get := []byte("GET /k HTTP/1.1\r\nHost: bucket.example\r\n\r\n")
	resp := []byte("HTTP/1.1 404 Not Found\r\nx-amz-request-id: ABC\r\nContent-Length: 3\r\n\r\nno!")
	pk := []Packet{
		{at(0), udpPacket(t, cl, res, 5353, 53, q)},
		{at(4), udpPacket(t, res, cl, 53, 5353, a)},
		// connection 1: the client's GET, the server's answer, a reset
		{at(5), tcpPacket(t, cl, sv, 40000, 80, 100, 0, "S", nil)},
		{at(25), tcpPacket(t, sv, cl, 80, 40000, 500, 101, "SA", nil)},
		{at(25), tcpPacket(t, cl, sv, 40000, 80, 101, 501, "A", nil)},
		{at(26), tcpPacket(t, cl, sv, 40000, 80, 101, 501, "PA", get)},
		{at(50), tcpPacket(t, sv, cl, 80, 40000, 501, 101+uint32(len(get)), "PA", resp)},
		{at(60), tcpPacket(t, sv, cl, 80, 40000, 501+uint32(len(resp)), 0, "R", nil)},
		// connection 2: idle for 2 s after its answer, then the server's FIN
		{at(100), tcpPacket(t, cl, sv, 40001, 80, 900, 0, "S", nil)},
		{at(120), tcpPacket(t, sv, cl, 80, 40001, 300, 901, "SA", nil)},
		{at(120), tcpPacket(t, cl, sv, 40001, 80, 901, 301, "A", nil)},
		{at(121), tcpPacket(t, cl, sv, 40001, 80, 901, 301, "PA", get)},
		{at(140), tcpPacket(t, sv, cl, 80, 40001, 301, 901+uint32(len(get)), "PA", resp)},
		{at(2200), tcpPacket(t, sv, cl, 80, 40001, 301+uint32(len(resp)), 901+uint32(len(get)), "FA", nil)},
		// connection 3, over IPv6: the client closes
		{at(3000), tcpPacket(t, cl6, sv6, 40002, 80, 10, 0, "S", nil)},
		{at(3020), tcpPacket(t, sv6, cl6, 80, 40002, 70, 11, "SA", nil)},
		{at(3020), tcpPacket(t, cl6, sv6, 40002, 80, 11, 71, "A", nil)},
		{at(3021), tcpPacket(t, cl6, sv6, 40002, 80, 11, 71, "PA", get)},
		{at(3040), tcpPacket(t, sv6, cl6, 80, 40002, 71, 11+uint32(len(get)), "PA", resp)},
		{at(3041), tcpPacket(t, cl6, sv6, 40002, 80, 11+uint32(len(get)), 71+uint32(len(resp)), "FA", nil)},
	}
	d := NewDecoder(Options{Client: func(a netip.Addr) bool { return a.String() == cl || a.String() == cl6 }})
	for _, p := range pk {
		d.Packet(p)
	}
	r := d.Result()
	if len(r.DNS) != 1 || r.DNS[0].Rcode != "NOERROR" || len(r.DNS[0].Addrs) != 1 || !r.DNS[0].Answer.Equal(at(4)) {
		t.Fatalf("DNS: %+v", r.DNS)
	}
	if len(r.Conns) != 3 {
		t.Fatalf("%d connections, want 3", len(r.Conns))
	}
	for i, c := range r.Conns {
		if i < 2 && (c.DNS == nil || c.DNS.Name != "bucket.example") {
			t.Errorf("conn %d: lookup %+v, want bucket.example's", i, c.DNS)
		}
		if c.Read != "plain" || len(c.Requests) != 1 {
			t.Fatalf("conn %d: read %q, %d requests", i, c.Read, len(c.Requests))
		}
		q := c.Requests[0]
		if q.Method != "GET" || q.Path != "/k" || q.Status != 404 || q.RequestID != "ABC" || q.BytesOut != 3 {
			t.Errorf("conn %d: %s %s %d %q %d bytes", i, q.Method, q.Path, q.Status, q.RequestID, q.BytesOut)
		}
	}
	c1, c2 := r.Conns[0], r.Conns[1]
	if !c1.Connect.Equal(at(5)) || !c1.Accepted.Equal(at(25)) || c1.Requests[0].FirstByte != at(50) {
		t.Errorf("conn 1 stamps: connect %v accepted %v first byte %v", c1.Connect, c1.Accepted, c1.Requests[0].FirstByte)
	}
	if c1.ClosedBy != "server" || c1.CloseHow != "rst" || !c1.Closed.Equal(at(60)) {
		t.Errorf("conn 1 closed by %q how %q at %v, want the server's reset at 60 ms", c1.ClosedBy, c1.CloseHow, c1.Closed)
	}
	if c2.ClosedBy != "idle-timeout" || c2.CloseHow != "fin" {
		t.Errorf("conn 2 closed by %q how %q, want the server's idle timeout", c2.ClosedBy, c2.CloseHow)
	}
	if c3 := r.Conns[2]; c3.Client != "[2001:db8::2]:40002" || c3.ClosedBy != "client" || c3.API != "s3" {
		t.Errorf("conn 3 (IPv6): client %s closed by %q API %q", c3.Client, c3.ClosedBy, c3.API)
	}
}

// A capture that began after the first connection's handshake reads its
// requests without keys (inferred), the next connection in full.
func TestMidstream(t *testing.T) {
	r := runClient(t, tlsCases[3])
	full := decode(t, r, true)
	first := full.Conns[0]
	// From the first request on: the handshake's packets are gone.
	var ps []Packet
	for _, p := range r.packets {
		if !p.Time.Before(first.Requests[0].Sent) {
			ps = append(ps, p)
		}
	}
	res := decode(t, run{packets: ps, keylog: r.keylog}, true)
	if len(res.Conns) != 2 {
		t.Fatalf("%d connections, want 2", len(res.Conns))
	}
	mid, next := res.Conns[0], res.Conns[1]
	if mid.Read != "inferred" || len(mid.Requests) != len(first.Requests) {
		t.Errorf("the joined connection: read %q, %d requests, the whole one had %d", mid.Read, len(mid.Requests), len(first.Requests))
	}
	if next.Read != "decrypted" || len(next.Requests) != len(full.Conns[1].Requests) {
		t.Errorf("the next connection: read %q with %d requests", next.Read, len(next.Requests))
	}
}

// Packets the path lost toward the client leave holes the capture holds
// the rest behind until the server sends them again: the response still
// reads whole, decrypted, with no gap.
func TestLossRecovered(t *testing.T) {
	w := newTestWire(t, 20*time.Millisecond) // 40 ms: a window's worth waits behind each hole
	w.dropEvery = 50
	ln := w.listen(t, testPort)
	srv := &seen{}
	cfg := &tls.Config{Certificates: []tls.Certificate{testCert(t)}}
	hs := &http.Server{Handler: srv.handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(tls.NewListener(ln, cfg)) }()
	defer hs.Close()
	var keylog bytes.Buffer
	tr := &http.Transport{
		DialContext:     func(ctx context.Context, _, _ string) (net.Conn, error) { return w.dial(ctx, testPort) },
		TLSClientConfig: &tls.Config{ServerName: "bucket.test", InsecureSkipVerify: true, KeyLogWriter: &keylog}, //nolint:gosec // a test's self-signed server
	}
	cl := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	const size = 2 << 20
	resp, err := cl.Get(fmt.Sprintf("https://bucket.test/obj/%d", size))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tr.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond)
	if n != size {
		t.Fatalf("the client read %d bytes", n)
	}
	res := decode(t, run{packets: w.captured(), keylog: keylog.Bytes()}, true)
	q := requestsOf(res)
	if w.large < 2*w.dropEvery {
		t.Fatalf("only %d large packets: none dropped", w.large)
	}
	if len(q) != 1 || q[0].BytesOut != size || res.Conns[0].Read != "decrypted" || res.Gaps != 0 {
		t.Fatalf("read %q, %d gaps, requests %d (first %d bytes)", res.Conns[0].Read, res.Gaps, len(q), q[0].BytesOut)
	}
}
