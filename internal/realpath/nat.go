package realpath

import (
	"encoding/binary"
	"net/netip"
)

// IP protocol numbers the translation knows the checksums of.
const (
	protoICMP = 1
	protoTCP  = 6
	protoUDP  = 17
)

// ip4 is a view of an IPv4 packet good enough to route and translate it:
// ok is false for anything else (IPv6, a truncated header).
type ip4 struct {
	b   []byte
	ihl int
}

func parseIPv4(b []byte) (ip4, bool) {
	if len(b) < 20 || b[0]>>4 != 4 {
		return ip4{}, false
	}
	ihl := int(b[0]&0x0f) * 4
	if ihl < 20 || len(b) < ihl {
		return ip4{}, false
	}
	return ip4{b: b, ihl: ihl}, true
}

func (p ip4) src() netip.Addr     { return netip.AddrFrom4([4]byte(p.b[12:16])) }
func (p ip4) dst() netip.Addr     { return netip.AddrFrom4([4]byte(p.b[16:20])) }
func (p ip4) proto() byte         { return p.b[9] }
func (p ip4) payload() []byte     { return p.b[p.ihl:] }
func (p ip4) firstFragment() bool { return binary.BigEndian.Uint16(p.b[6:8])&0x1fff == 0 }

// dstPort is the UDP or TCP destination port (0 for others or fragments).
func (p ip4) dstPort() uint16 {
	if (p.proto() != protoUDP && p.proto() != protoTCP) || !p.firstFragment() || len(p.payload()) < 4 {
		return 0
	}
	return binary.BigEndian.Uint16(p.payload()[2:4])
}

// csumAdjust is RFC 1624's incremental update of a ones'-complement
// checksum for a 32-bit field changed from old to new.
func csumAdjust(sum uint16, old, new [4]byte) uint16 {
	acc := uint32(^sum)
	for i := 0; i < 4; i += 2 {
		acc += uint32(^binary.BigEndian.Uint16(old[i:]) & 0xffff)
		acc += uint32(binary.BigEndian.Uint16(new[i:]))
	}
	for acc>>16 != 0 {
		acc = acc&0xffff + acc>>16
	}
	return ^uint16(acc)
}

// translate rewrites p's source and destination addresses in place, with
// the IP header's checksum and the TCP or UDP one (whose pseudo-header
// holds the addresses) updated: the packet is the same packet to both
// kernels, between other addresses.
func translate(p ip4, src, dst netip.Addr) {
	os, od := [4]byte(p.b[12:16]), [4]byte(p.b[16:20])
	ns, nd := src.As4(), dst.As4()
	copy(p.b[12:16], ns[:])
	copy(p.b[16:20], nd[:])
	h := binary.BigEndian.Uint16(p.b[10:12])
	h = csumAdjust(csumAdjust(h, os, ns), od, nd)
	binary.BigEndian.PutUint16(p.b[10:12], h)
	if !p.firstFragment() {
		return
	}
	var at int
	switch p.proto() {
	case protoTCP:
		at = 16
	case protoUDP:
		at = 6
	default:
		return
	}
	t := p.payload()
	if len(t) < at+2 {
		return
	}
	c := binary.BigEndian.Uint16(t[at:])
	if p.proto() == protoUDP && c == 0 {
		return // no checksum sent
	}
	c = csumAdjust(csumAdjust(c, os, ns), od, nd)
	if p.proto() == protoUDP && c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(t[at:], c)
}
