package realpath

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/buffer"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/adapters/gonet"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/link/channel"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/network/ipv4"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/transport/tcp"
	"github.com/objbench/objbench/third_party/gvisor/pkg/waiter"
)

// translator is the user-space edge (as slirp4netns and pasta have it):
// a gVisor TCP/IP stack that takes the program's packets for any address,
// ends each TCP connection there, and opens objbench's own to the same
// destination (the host's loopback for HostAddr), copying bytes both
// ways. The program's TCP is real up to the edge; beyond it, the
// connection is objbench's.
type translator struct {
	s      *stack.Stack
	ep     *channel.Endpoint
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// dial opens the connection beyond the edge (a test stands in).
	dial func(ctx context.Context, addr string) (net.Conn, error)

	conns, refused atomic.Int64
	// lastRefusal is why the last refused connection was refused (the
	// dial's error), for the notice after the run.
	lastRefusal atomic.Pointer[string]
}

// newTranslator starts the stack; out receives every packet it sends
// toward the program.
func newTranslator(mtu int, out func([]byte)) (*translator, error) {
	t := &translator{ep: channel.New(4096, uint32(mtu), "")}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.dial = func(ctx context.Context, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: 10 * time.Second}
		return d.DialContext(ctx, "tcp4", addr)
	}
	t.s = stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol},
	})
	fail := func(what string, e tcpip.Error) (*translator, error) {
		t.s.Close()
		return nil, fmt.Errorf("translator: %s: %s", what, e)
	}
	if e := t.s.CreateNIC(1, t.ep); e != nil {
		return fail("NIC", e)
	}
	// Every address is the edge's: it answers for whatever the program
	// dials.
	if e := t.s.SetPromiscuousMode(1, true); e != nil {
		return fail("promiscuous", e)
	}
	if e := t.s.SetSpoofing(1, true); e != nil {
		return fail("spoofing", e)
	}
	t.s.SetRouteTable([]tcpip.Route{{Destination: header.IPv4EmptySubnet, NIC: 1}})
	sack := tcpip.TCPSACKEnabled(true)
	moderate := tcpip.TCPModerateReceiveBufferOption(true)
	for _, o := range []tcpip.SettableTransportProtocolOption{&sack, &moderate,
		&tcpip.TCPReceiveBufferSizeRangeOption{Min: 4096, Default: 1 << 20, Max: 8 << 20},
		&tcpip.TCPSendBufferSizeRangeOption{Min: 4096, Default: 1 << 20, Max: 8 << 20}} {
		if e := t.s.SetTransportProtocolOption(tcp.ProtocolNumber, o); e != nil {
			return fail(fmt.Sprintf("option %T", o), e)
		}
	}
	fwd := tcp.NewForwarder(t.s, 0, 1024, t.accept)
	t.s.SetTransportProtocolHandler(tcp.ProtocolNumber, fwd.HandlePacket)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		for {
			pkt := t.ep.ReadContext(t.ctx)
			if pkt == nil {
				return
			}
			v := pkt.ToView()
			b := append([]byte(nil), v.AsSlice()...)
			v.Release()
			pkt.DecRef()
			out(b)
		}
	}()
	return t, nil
}

// inject hands the stack a packet from the program.
func (t *translator) inject(b []byte) {
	pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(append([]byte(nil), b...))})
	t.ep.InjectInbound(header.IPv4ProtocolNumber, pkt)
	pkt.DecRef()
}

// beyond is where objbench's own connection goes for a destination the
// program dialed: the host's loopback for HostAddr.
func beyond(dst netip.Addr, port uint16) string {
	if dst == HostAddr {
		dst = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	return net.JoinHostPort(dst.String(), strconv.Itoa(int(port)))
}

// accept takes one of the program's SYNs: objbench connects beyond first,
// so a refused destination is refused to the program too (a reset).
func (t *translator) accept(r *tcp.ForwarderRequest) {
	id := r.ID()
	dst := netip.AddrFrom4(id.LocalAddress.As4())
	up, err := t.dial(t.ctx, beyond(dst, id.LocalPort))
	if err != nil {
		t.refused.Add(1)
		why := err.Error()
		t.lastRefusal.Store(&why)
		r.Complete(true)
		return
	}
	var wq waiter.Queue
	ep, e := r.CreateEndpoint(&wq)
	if e != nil {
		up.Close()
		r.Complete(true)
		return
	}
	r.Complete(false)
	ep.SocketOptions().SetDelayOption(false) // the edge adds no Nagle of its own
	t.conns.Add(1)
	down := gonet.NewTCPConn(&wq, ep)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		splice(t.ctx, down, up)
	}()
}

// splice copies both ways, passing each side's end of stream on as a
// half close, until both are done or ctx ends.
func splice(ctx context.Context, a, b net.Conn) {
	done := make(chan struct{}, 2)
	half := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			dst.Close()
		}
		done <- struct{}{}
	}
	go half(a, b)
	go half(b, a)
	for n := 0; n < 2; {
		select {
		case <-done:
			n++
		case <-ctx.Done():
			a.Close()
			b.Close()
			for ; n < 2; n++ {
				<-done
			}
		}
	}
	a.Close()
	b.Close()
}

// Close ends every connection and the stack.
func (t *translator) Close() {
	t.cancel()
	t.s.Close()
	t.ep.Close()
	t.wg.Wait()
}
