package realpath

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

// checksumsOK says whether p's IPv4 header checksum and its TCP or UDP
// checksum (over the pseudo-header) verify.
func checksumsOK(t *testing.T, b []byte) bool {
	t.Helper()
	p, ok := parseIPv4(b)
	if !ok {
		t.Fatal("not IPv4")
	}
	if sum16(b[:p.ihl], 0) != 0xffff {
		return false
	}
	seg := p.payload()
	if p.proto() == protoUDP && binary.BigEndian.Uint16(seg[6:]) == 0 {
		return true
	}
	pseudo := uint32(0)
	for i := 12; i < 20; i += 2 {
		pseudo += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	pseudo += uint32(p.proto()) + uint32(len(seg))
	return sum16(seg, pseudo) == 0xffff
}

// withChecksums fills in a packet's checksums from scratch.
func withChecksums(b []byte) []byte {
	p, _ := parseIPv4(b)
	binary.BigEndian.PutUint16(b[10:], 0)
	binary.BigEndian.PutUint16(b[10:], ^sum16(b[:p.ihl], 0))
	seg := p.payload()
	at := 16
	if p.proto() == protoUDP {
		at = 6
	}
	binary.BigEndian.PutUint16(seg[at:], 0)
	pseudo := uint32(0)
	for i := 12; i < 20; i += 2 {
		pseudo += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	pseudo += uint32(p.proto()) + uint32(len(seg))
	c := ^sum16(seg, pseudo)
	if c == 0 && p.proto() == protoUDP {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(seg[at:], c)
	return b
}

// TestTranslate: the host's loopback mapping rewrites both addresses and
// leaves every checksum valid, both ways, for TCP (with and without a
// payload of odd length) and UDP.
func TestTranslate(t *testing.T) {
	c, h := netip.AddrPortFrom(ProgramAddr, 40000), netip.AddrPortFrom(HostAddr, 9000)
	loop, peer := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.79.12.34")
	udp := func(payload int) []byte {
		return withChecksums(udpPacket(c, h, make([]byte, payload)))
	}
	tcp := func(payload int) []byte {
		b := tcpPacket(c, h, 1000, 2000, 0x18, payload)
		for i := 40; i < len(b); i++ {
			b[i] = byte(i * 7)
		}
		return withChecksums(b)
	}
	for _, tc := range []struct {
		name string
		pkt  []byte
	}{{"tcp syn", tcp(0)}, {"tcp data", tcp(1000)}, {"tcp odd data", tcp(333)}, {"udp", udp(48)}, {"udp odd", udp(7)}} {
		t.Run(tc.name, func(t *testing.T) {
			if !checksumsOK(t, tc.pkt) {
				t.Fatal("the test's packet does not verify")
			}
			p, _ := parseIPv4(tc.pkt)
			translate(p, peer, loop)
			if p.src() != peer || p.dst() != loop || !checksumsOK(t, tc.pkt) {
				t.Fatalf("to the host: %v -> %v, checksums ok %v", p.src(), p.dst(), checksumsOK(t, tc.pkt))
			}
			translate(p, HostAddr, ProgramAddr) // as an answer would come back
			if p.src() != HostAddr || p.dst() != ProgramAddr || !checksumsOK(t, tc.pkt) {
				t.Fatalf("back: %v -> %v, checksums ok %v", p.src(), p.dst(), checksumsOK(t, tc.pkt))
			}
		})
	}
}
