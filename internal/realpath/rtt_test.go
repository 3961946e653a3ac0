package realpath

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"
)

// tcpPacket is an IPv4 TCP packet from src to dst with seq, ack, flags
// and n bytes of payload.
func tcpPacket(src, dst netip.AddrPort, seq, ack uint32, flags byte, n int) []byte {
	b := make([]byte, 40+n)
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
	b[9] = protoTCP
	s, d := src.Addr().As4(), dst.Addr().As4()
	copy(b[12:], s[:])
	copy(b[16:], d[:])
	t := b[20:]
	binary.BigEndian.PutUint16(t[0:], src.Port())
	binary.BigEndian.PutUint16(t[2:], dst.Port())
	binary.BigEndian.PutUint32(t[4:], seq)
	binary.BigEndian.PutUint32(t[8:], ack)
	t[12] = 5 << 4
	t[13] = flags
	return b
}

func TestRTTMeter(t *testing.T) {
	c, s := netip.MustParseAddrPort("10.77.0.1:40000"), netip.MustParseAddrPort("10.77.0.2:443")
	t0 := time.Unix(1000, 0)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	const syn, ack, psh = 0x02, 0x10, 0x08
	for _, tc := range []struct {
		name    string
		packets func(m *RTTMeter)
		min     time.Duration
		samples int
	}{
		{"handshake and a delayed ACK", func(m *RTTMeter) {
			m.Packet(at(0), tcpPacket(c, s, 100, 0, syn, 0))
			m.Packet(at(21), tcpPacket(s, c, 500, 101, syn|ack, 0))
			m.Packet(at(21.1), tcpPacket(c, s, 101, 501, ack, 0))
			m.Packet(at(22), tcpPacket(c, s, 101, 501, ack|psh, 300))
			m.Packet(at(82), tcpPacket(s, c, 501, 401, ack, 0)) // 40 ms delayed ACK
			m.Packet(at(90), tcpPacket(c, s, 401, 501, ack|psh, 100))
			m.Packet(at(110), tcpPacket(s, c, 501, 501, ack|psh, 50)) // answered at once
		}, 20 * time.Millisecond, 3},
		{"a retransmission is not timed (Karn)", func(m *RTTMeter) {
			m.Packet(at(0), tcpPacket(c, s, 100, 0, syn, 0))
			m.Packet(at(30), tcpPacket(s, c, 500, 101, syn|ack, 0))
			m.Packet(at(31), tcpPacket(c, s, 101, 501, ack|psh, 100))
			m.Packet(at(231), tcpPacket(c, s, 101, 501, ack|psh, 100)) // again
			m.Packet(at(240), tcpPacket(s, c, 501, 201, ack, 0))       // 9 ms after the copy
		}, 30 * time.Millisecond, 1},
		{"no SYN seen: nothing timed", func(m *RTTMeter) {
			m.Packet(at(0), tcpPacket(c, s, 101, 501, ack|psh, 100))
			m.Packet(at(5), tcpPacket(s, c, 501, 201, ack, 0))
		}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewRTTMeter()
			tc.packets(m)
			if m.Min() != tc.min || m.Samples() != tc.samples {
				t.Errorf("min %v from %d samples, want %v from %d", m.Min(), m.Samples(), tc.min, tc.samples)
			}
		})
	}
}
