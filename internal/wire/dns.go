package wire

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// dnsTable pairs DNS questions with their answers.
type dnsTable struct {
	lookups []DNSLookup
	open    map[dnsKey]int // a question's index in lookups, until its answer
	msg     layers.DNS
}

type dnsKey struct {
	client netip.AddrPort
	id     uint16
}

var rcodes = map[layers.DNSResponseCode]string{0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED"}

// packet reads one DNS message over UDP; false when it is not one.
func (t *dnsTable) packet(at time.Time, src, dst netip.Addr, udp *layers.UDP) bool {
	if err := t.msg.DecodeFromBytes(udp.Payload, gopacket.NilDecodeFeedback); err != nil || len(t.msg.Questions) == 0 {
		return false
	}
	if t.open == nil {
		t.open = map[dnsKey]int{}
	}
	m := &t.msg
	q := m.Questions[0]
	if !m.QR {
		if len(t.lookups) >= maxLookups {
			return true
		}
		k := dnsKey{netip.AddrPortFrom(src, uint16(udp.SrcPort)), m.ID}
		t.open[k] = len(t.lookups)
		t.lookups = append(t.lookups, DNSLookup{Name: string(q.Name), Type: q.Type.String(),
			Server: netip.AddrPortFrom(dst, uint16(udp.DstPort)).String(), Query: at})
		return true
	}
	k := dnsKey{netip.AddrPortFrom(dst, uint16(udp.DstPort)), m.ID}
	i, ok := t.open[k]
	if !ok || t.lookups[i].Name != string(q.Name) {
		return true // an answer to a question not seen
	}
	delete(t.open, k)
	l := &t.lookups[i]
	l.Answer = at
	l.Rcode = rcodes[m.ResponseCode]
	if l.Rcode == "" {
		l.Rcode = fmt.Sprintf("RCODE%d", m.ResponseCode)
	}
	for _, a := range m.Answers {
		if (a.Type == layers.DNSTypeA || a.Type == layers.DNSTypeAAAA) && a.IP != nil {
			if ip, ok := netip.AddrFromSlice(a.IP); ok {
				l.Addrs = append(l.Addrs, ip.Unmap().String())
			}
		}
	}
	return true
}

// result is a copy of the lookups.
func (t *dnsTable) result() []DNSLookup {
	out := make([]DNSLookup, len(t.lookups))
	for i, l := range t.lookups {
		l.Addrs = slices.Clone(l.Addrs)
		out[i] = l
	}
	return out
}

// lookupFor is the last lookup answered by at whose answer holds addr.
func lookupFor(lookups []DNSLookup, addr netip.Addr, at time.Time) *DNSLookup {
	a := addr.Unmap().String()
	for i := len(lookups) - 1; i >= 0; i-- {
		l := &lookups[i]
		if l.Answer.IsZero() || at.IsZero() || l.Answer.After(at) {
			continue
		}
		if slices.Contains(l.Addrs, a) {
			return l
		}
	}
	return nil
}
