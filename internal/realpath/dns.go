package realpath

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// resolver answers the program's name lookups from this machine's: the
// names in its hosts file first, then its resolver. A loopback answer is
// the host's loopback as the program reaches it (the mapped address).
type resolver struct {
	hosts map[string][]netip.Addr
	// lookup is the host's resolver (a test stands in for it).
	lookup func(ctx context.Context, name string) ([]netip.Addr, error)
	host   netip.Addr
}

func newResolver(hostsFile string, host netip.Addr) *resolver {
	return &resolver{hosts: readHosts(hostsFile), host: host,
		lookup: func(ctx context.Context, name string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip4", name)
		}}
}

// readHosts reads a hosts file's IPv4 names, lower-cased.
func readHosts(path string) map[string][]netip.Addr {
	out := map[string][]netip.Addr{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		a, err := netip.ParseAddr(fields[0])
		if err != nil || !a.Is4() {
			continue
		}
		for _, n := range fields[1:] {
			n = strings.ToLower(n)
			out[n] = append(out[n], a)
		}
	}
	return out
}

// answer is the response to a DNS query (ok false: not one to answer).
// A queries get the host's addresses; other types an empty answer, so the
// program keeps to IPv4 (its namespace has no IPv6 route).
func (r *resolver) answer(ctx context.Context, query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil || h.Response {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
	rh := dnsmessage.Header{ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	var addrs []netip.Addr
	if q.Type == dnsmessage.TypeA && q.Class == dnsmessage.ClassINET {
		if a, ok := r.hosts[name]; ok {
			addrs = a
		} else {
			lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			a, err := r.lookup(lctx, name)
			cancel()
			var de *net.DNSError
			switch {
			case err == nil:
				addrs = a
			case errors.As(err, &de) && de.IsNotFound:
				rh.RCode = dnsmessage.RCodeNameError
			default:
				rh.RCode = dnsmessage.RCodeServerFailure
			}
		}
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(q) != nil || b.StartAnswers() != nil {
		return nil, false
	}
	for _, a := range addrs {
		a = a.Unmap()
		if !a.Is4() {
			continue
		}
		if a.IsLoopback() {
			a = r.host
		}
		if b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 30}, dnsmessage.AResource{A: a.As4()}) != nil {
			return nil, false
		}
	}
	out, err := b.Finish()
	return out, err == nil
}

// udpReply is an IPv4 UDP packet answering query packet q with payload.
func udpReply(q ip4, payload []byte) []byte {
	t := q.payload()
	out := make([]byte, 28+len(payload))
	out[0] = 0x45
	binary.BigEndian.PutUint16(out[2:], uint16(len(out)))
	out[6] = 0x40 // don't fragment
	out[8] = 64
	out[9] = protoUDP
	copy(out[12:16], q.b[16:20])
	copy(out[16:20], q.b[12:16])
	binary.BigEndian.PutUint16(out[10:], ^sum16(out[:20], 0))
	u := out[20:]
	copy(u[0:2], t[2:4])
	copy(u[2:4], t[0:2])
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(payload)))
	copy(u[8:], payload)
	pseudo := uint32(0)
	for i := 12; i < 20; i += 2 {
		pseudo += uint32(binary.BigEndian.Uint16(out[i:]))
	}
	pseudo += protoUDP + uint32(len(u))
	c := ^sum16(u, pseudo)
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(u[6:], c)
	return out
}

// sum16 is the ones'-complement sum of b (padded to an even length) and acc.
func sum16(b []byte, acc uint32) uint16 {
	for i := 0; i+1 < len(b); i += 2 {
		acc += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		acc += uint32(b[len(b)-1]) << 8
	}
	for acc>>16 != 0 {
		acc = acc&0xffff + acc>>16
	}
	return uint16(acc)
}

// udpPacket is an IPv4 UDP packet from src to dst carrying payload.
func udpPacket(src, dst netip.AddrPort, payload []byte) []byte {
	out := make([]byte, 28+len(payload))
	out[0] = 0x45
	binary.BigEndian.PutUint16(out[2:], uint16(len(out)))
	out[8] = 64
	out[9] = protoUDP
	s, d := src.Addr().As4(), dst.Addr().As4()
	copy(out[12:16], s[:])
	copy(out[16:20], d[:])
	binary.BigEndian.PutUint16(out[10:], ^sum16(out[:20], 0))
	u := out[20:]
	binary.BigEndian.PutUint16(u[0:], src.Port())
	binary.BigEndian.PutUint16(u[2:], dst.Port())
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(payload)))
	copy(u[8:], payload) // checksum 0: none, as UDP over IPv4 allows
	return out
}
