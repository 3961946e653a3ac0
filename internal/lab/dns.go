package lab

import (
	"context"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/objbench/objbench/internal/lab/server"
)

// Domain is the lab's own DNS domain: .test is reserved for testing (RFC 6761).
const Domain = "objbench.test"

// hostName is api's name in the lab's domain, e.g. s3.objbench.test.
func hostName(api string) string { return api + "." + Domain }

// dnsServer is the lab's resolver: it answers A queries for names under
// Domain with 127.0.0.1 (where the local endpoints are) after the lookup
// time, as a recursive resolver a few milliseconds away would (on the netns
// path, in the program's namespace, with the servers' address). Other names
// get NXDOMAIN. It serves on a loopback UDP port, so other programs can ask
// it too (dig @127.0.0.1 -p PORT s3.objbench.test).
type dnsServer struct {
	pc      net.PacketConn
	a       [4]byte // the answer for the lab's names
	lookup  time.Duration
	ttl     uint32
	wg      sync.WaitGroup
	stopped context.Context // ends at Close
	stop    context.CancelFunc
}

func startDNS(lookup, ttl time.Duration) (*dnsServer, error) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return serveDNS(pc, lookup, ttl, [4]byte{127, 0, 0, 1}), nil
}

// serveDNS answers on pc, the lab's names with a.
func serveDNS(pc net.PacketConn, lookup, ttl time.Duration, a [4]byte) *dnsServer {
	d := &dnsServer{pc: pc, a: a, lookup: lookup, ttl: uint32(ttl / time.Second)}
	d.stopped, d.stop = context.WithCancel(context.Background())
	d.wg.Add(1)
	go d.serve()
	return d
}

// Addr is the resolver's UDP address.
func (d *dnsServer) Addr() string { return d.pc.LocalAddr().String() }

func (d *dnsServer) serve() {
	defer d.wg.Done()
	buf := make([]byte, 1500)
	for {
		n, from, err := d.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		q := append([]byte(nil), buf[:n]...)
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			resp, ok := d.answer(q)
			if !ok {
				return
			}
			if server.Hold(context.Background(), d.stopped, d.lookup) != nil {
				return
			}
			_, _ = d.pc.WriteTo(resp, from)
		}()
	}
}

func (d *dnsServer) answer(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
	ours := name == Domain || strings.HasSuffix(name, "."+Domain)
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !ours {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(q) != nil || b.StartAnswers() != nil {
		return nil, false
	}
	if ours && q.Type == dnsmessage.TypeA && q.Class == dnsmessage.ClassINET {
		if b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: d.ttl}, dnsmessage.AResource{A: d.a}) != nil {
			return nil, false
		}
	}
	out, err := b.Finish()
	return out, err == nil
}

// resolver is a Go resolver that asks only the lab's server.
func (d *dnsServer) resolver() *net.Resolver {
	addr := d.Addr()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var nd net.Dialer
		return nd.DialContext(ctx, "udp", addr)
	}}
}

func (d *dnsServer) Close() {
	d.stop()
	d.pc.Close()
	d.wg.Wait()
}
