package realpath

import (
	"encoding/binary"
	"net/netip"
	"time"
)

// RTTMeter measures a path's round trip from its packets as tcptrace
// does: each segment the client sends (SYN, data, FIN) against the first
// ACK from the server that covers it, retransmitted segments left out
// (Karn). The minimum over every sample is the path's own round trip,
// clear of the server's delayed ACKs and the machine's scheduling, which
// only ever add: a single handshake's time is not (its first packets wait
// for timers and caches). Its methods are for one goroutine at a time.
type RTTMeter struct {
	flows   map[flowKey]*flowState
	min     time.Duration
	samples int
}

type flowKey struct{ client, server netip.AddrPort }

type flowState struct {
	// pending are the client's segments not yet acknowledged, oldest first.
	pending []sentSeg
	high    uint32 // the highest sequence end sent
}

type sentSeg struct {
	end uint32
	at  time.Time
}

// maxFlows and maxPending bound the meter's memory.
const (
	maxFlows   = 4096
	maxPending = 64
)

// NewRTTMeter starts with no sample.
func NewRTTMeter() *RTTMeter { return &RTTMeter{flows: map[flowKey]*flowState{}} }

// Min is the smallest round trip seen (0 when none was).
func (m *RTTMeter) Min() time.Duration { return m.min }

// Samples is how many round trips were measured.
func (m *RTTMeter) Samples() int { return m.samples }

// seqLE is a <= b in sequence space.
func seqLE(a, b uint32) bool { return int32(b-a) >= 0 }

// Packet reads one IPv4 packet seen at t (others are ignored).
func (m *RTTMeter) Packet(t time.Time, data []byte) {
	p, ok := parseIPv4(data)
	if !ok || p.proto() != protoTCP || !p.firstFragment() {
		return
	}
	tcp := p.payload()
	if len(tcp) < 20 {
		return
	}
	off := int(tcp[12]>>4) * 4
	if off < 20 || off > len(tcp) {
		return
	}
	src := netip.AddrPortFrom(p.src(), binary.BigEndian.Uint16(tcp[0:2]))
	dst := netip.AddrPortFrom(p.dst(), binary.BigEndian.Uint16(tcp[2:4]))
	seq, ack, flags := binary.BigEndian.Uint32(tcp[4:8]), binary.BigEndian.Uint32(tcp[8:12]), tcp[13]
	const fin, syn, rst, ackf = 0x01, 0x02, 0x04, 0x10
	total := int(binary.BigEndian.Uint16(p.b[2:4]))
	n := min(total, len(p.b)) - p.ihl - off
	if flags&rst != 0 {
		delete(m.flows, flowKey{src, dst})
		delete(m.flows, flowKey{dst, src})
		return
	}
	if flags&syn != 0 && flags&ackf == 0 {
		if len(m.flows) >= maxFlows {
			return
		}
		m.flows[flowKey{src, dst}] = &flowState{pending: []sentSeg{{seq + 1, t}}, high: seq + 1}
		return
	}
	if f := m.flows[flowKey{src, dst}]; f != nil { // the client's
		end := seq + uint32(max(n, 0))
		if flags&fin != 0 {
			end++
		}
		if end == seq {
			return // a pure ACK: nothing to time
		}
		if seqLE(end, f.high) {
			f.pending = f.pending[:0] // a retransmission: Karn's rule
			return
		}
		f.high = end
		if len(f.pending) == maxPending {
			f.pending = f.pending[1:]
		}
		f.pending = append(f.pending, sentSeg{end, t})
		return
	}
	f := m.flows[flowKey{dst, src}] // the server's
	if f == nil || flags&ackf == 0 {
		return
	}
	covered := -1
	for i, s := range f.pending {
		if !seqLE(s.end, ack) {
			break
		}
		covered = i
	}
	if covered < 0 {
		return
	}
	rtt := t.Sub(f.pending[covered].at)
	f.pending = append(f.pending[:0], f.pending[covered+1:]...)
	if rtt > 0 && (m.samples == 0 || rtt < m.min) {
		m.min = rtt
	}
	m.samples++
}
