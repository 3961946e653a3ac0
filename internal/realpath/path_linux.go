package realpath

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/netns"
)

// Path is a running path: the program's namespace, its device, the wire
// and the router beyond it.
type Path struct {
	prog    *netns.NS
	pipe    *netem.Pipe
	router  *router
	mode    string
	loopDNS []net.PacketConn
	wg      sync.WaitGroup
}

// Start makes the program's namespace and starts carrying its packets.
// Every failure leaves nothing behind; so does Close.
func Start(cfg Config) (_ *Path, err error) {
	if cfg.Wire.MTU == 0 {
		cfg.Wire.MTU = 1500
	}
	if cfg.HostsFile == "" {
		cfg.HostsFile = "/etc/hosts"
	}
	p := &Path{mode: ModeKernel}
	var progTUN *os.File
	defer func() {
		if err != nil {
			if progTUN != nil && p.pipe == nil {
				progTUN.Close()
			}
			p.Close()
		}
	}()
	if p.prog, err = netns.New(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if progTUN, err = p.prog.TUN("wire0", ProgramAddr.AsSlice(), 24, cfg.Wire.MTU); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err = p.prog.DefaultRoute("wire0"); err != nil {
		return nil, err
	}
	if p.router, err = newRouter(cfg.Wire.MTU, newResolver(cfg.HostsFile, HostAddr), cfg.Translator); err != nil {
		return nil, err
	}
	capture := cfg.Capture
	if capture == nil {
		capture = func(time.Time, []byte) {}
	}
	tp := &tap{f: progTUN, capture: capture}
	if p.pipe, err = netem.NewPipe(cfg.Wire, tp, p.router); err != nil {
		p.router.Close()
		p.router = nil
		return nil, err
	}
	// A name server on loopback (systemd-resolved's 127.0.0.53) is the
	// namespace's own loopback there: objbench answers on it, and puts
	// each lookup on the capture as the packets it would have been.
	resolvConf := cfg.ResolvConf
	if resolvConf == "" {
		resolvConf = "/etc/resolv.conf"
	}
	for _, ns := range loopbackNameServers(resolvConf) {
		pc, err := p.prog.ListenPacket("udp4", netip.AddrPortFrom(ns, 53).String())
		if err != nil {
			return nil, fmt.Errorf("the program's name server at %s: %w", ns, err)
		}
		p.loopDNS = append(p.loopDNS, pc)
		p.wg.Add(1)
		go p.serveLoopDNS(pc, tp)
	}
	return p, nil
}

// loopbackNameServers are resolv.conf's IPv4 name servers on loopback.
func loopbackNameServers(path string) []netip.Addr {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "nameserver" {
			if a, err := netip.ParseAddr(f[1]); err == nil && a.Is4() && a.IsLoopback() {
				out = append(out, a)
			}
		}
	}
	return out
}

// serveLoopDNS answers lookups sent to a loopback name server in the
// program's namespace, each query and answer captured as a UDP packet.
func (p *Path) serveLoopDNS(pc net.PacketConn, tp *tap) {
	defer p.wg.Done()
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		ua, ok := from.(*net.UDPAddr)
		if !ok {
			continue
		}
		src, _ := netip.AddrFromSlice(ua.IP.To4())
		server := netip.MustParseAddrPort(pc.LocalAddr().String())
		q := udpPacket(netip.AddrPortFrom(src, uint16(ua.Port)), server, buf[:n])
		tp.note(q)
		resp, ok := p.router.res.answer(p.router.ctx, buf[:n])
		if !ok {
			continue
		}
		p.router.lookups.Add(1)
		qp, _ := parseIPv4(q)
		tp.note(udpReply(qp, resp))
		_, _ = pc.WriteTo(resp, from)
	}
}

// Mode says what carried the program's TCP connections beyond the
// capture point: ModeKernel when every one went end to end, else
// ModeTranslator (Note says which went where).
func (p *Path) Mode() string {
	if p.router == nil || p.router.host != nil && p.router.tr.conns.Load() == 0 {
		return ModeKernel
	}
	return ModeTranslator
}

// Note says, in a line, which destinations the kernel carried and which
// the translator did, and why ("" when the kernel carried all).
func (p *Path) Note() string {
	if p.router == nil {
		return ""
	}
	switch {
	case p.router.host == nil:
		return "the translator carried every connection (" + p.router.why + ")"
	case p.router.tr.conns.Load() > 0:
		return "the host's loopback (" + HostAddr.String() + ") kernel end to end; other destinations through the translator (kernel NAT beyond this machine needs netfilter, which objbench does not change)"
	}
	return ""
}

// Env is what the program is told about the path.
func (p *Path) Env() []string { return []string{HostEnv + "=" + HostAddr.String()} }

// Run starts cmd in the program's namespace (without objbench's
// capabilities when objbench runs in a user namespace of its own).
func (p *Path) Run(cmd *exec.Cmd) error { return p.prog.Start(cmd) }

// Dial connects from the program's namespace (tests, and the benchmark's
// client).
func (p *Path) Dial(ctx context.Context, network, addr string) (c net.Conn, err error) {
	err = p.prog.Do(func() error {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Do runs fn in the program's namespace.
func (p *Path) Do(fn func() error) error { return p.prog.Do(fn) }

// Stats are the path's counters so far.
func (p *Path) Stats() Stats {
	if p.router == nil {
		return Stats{}
	}
	st := Stats{Lookups: p.router.lookups.Load(), Unreachable: p.router.unreachable.Load(),
		Translated: p.router.tr.conns.Load(), Refused: p.router.tr.refused.Load()}
	if why := p.router.tr.lastRefusal.Load(); why != nil {
		st.LastRefusal = *why
	}
	return st
}

// Close stops the wire and drops the namespace and both devices.
func (p *Path) Close() error {
	var errs []error
	for _, pc := range p.loopDNS {
		pc.Close()
	}
	p.wg.Wait()
	if p.pipe != nil {
		errs = append(errs, p.pipe.Close()) // closes the program's device and the router
	} else if p.router != nil {
		errs = append(errs, p.router.Close())
	}
	if p.prog != nil {
		errs = append(errs, p.prog.Close())
	}
	return errors.Join(errs...)
}

// tap is the program's device with the capture on it.
type tap struct {
	f       *os.File
	capture func(time.Time, []byte)
	mu      sync.Mutex
}

func (t *tap) Read(b []byte) (int, error) {
	n, err := t.f.Read(b)
	if n > 0 {
		now := time.Now()
		t.mu.Lock()
		t.capture(now, b[:n])
		t.mu.Unlock()
	}
	return n, err
}

// Write hands the program a packet, captured first: the kernel answers
// some at once (a SYN-ACK's ACK), and the answer must not be seen before
// what it answers.
func (t *tap) Write(b []byte) (int, error) {
	t.mu.Lock()
	t.capture(time.Now(), b)
	t.mu.Unlock()
	return t.f.Write(b)
}

func (t *tap) Close() error { return t.f.Close() }

// note captures a packet that never crossed the device (a lookup answered
// on the namespace's loopback).
func (t *tap) note(b []byte) {
	t.mu.Lock()
	t.capture(time.Now(), b)
	t.mu.Unlock()
}

// router is the far end of the wire: it answers name lookups, carries
// packets for the host's loopback onto the host's device (addresses
// translated both ways) and answers others as unreachable.
type router struct {
	mtu int
	// host is the host's device (nil: the translator carries everything;
	// why says why).
	host *os.File
	why  string
	tr   *translator
	// hostPeer is the program's address as the host sees it (on the host
	// device's network); loop is the host's loopback.
	hostPeer, loop netip.Addr
	res            *resolver
	out            chan []byte
	done           chan struct{}
	closeOnce      sync.Once
	wg             sync.WaitGroup
	ctx            context.Context
	cancel         context.CancelFunc

	lookups, unreachable atomic.Int64
}

// newRouter starts the far end: the host's device where objbench may make
// one in its own namespace (root), the translator for the rest (and for
// everything when it may not, or translate says so).
func newRouter(mtu int, res *resolver, translate bool) (_ *router, err error) {
	r := &router{mtu: mtu, res: res, loop: netip.AddrFrom4([4]byte{127, 0, 0, 1}), out: make(chan []byte, 1024), done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if r.tr, err = newTranslator(mtu, r.push); err != nil {
		return nil, err
	}
	if translate {
		r.why = "asked for"
		return r, nil
	}
	if err := r.hostSide(); err != nil {
		// Rootless: a user namespace's capabilities do not reach the
		// host's network namespace.
		r.why = err.Error()
		return r, nil
	}
	r.wg.Add(1)
	go r.fromHost()
	return r, nil
}

// hostSide makes the host's device and lets 127.0.0.1 cross it.
func (r *router) hostSide() error {
	here, err := netns.Current()
	if err != nil {
		return err
	}
	defer here.Close()
	name, side, peer, err := hostDevice()
	if err != nil {
		return err
	}
	r.hostPeer = peer
	host, err := here.TUN(name, side.AsSlice(), 30, r.mtu)
	if err != nil {
		return fmt.Errorf("no device in objbench's own namespace: %w", err)
	}
	// The device's own setting, gone with it: packets to and from 127.0.0.1
	// may cross it (the host's others keep the default).
	if err := here.Sysctl("net/ipv4/conf/"+name+"/route_localnet", "1"); err != nil {
		host.Close()
		return err
	}
	r.host = host
	return nil
}

// hostDevice picks the host device's name and a /30 of 10.79.0.0/16 that
// no interface of this namespace is on: objbench's address there and the
// program's as the host sees it.
func hostDevice() (name string, side, peer netip.Addr, err error) {
	var rb [4]byte
	if _, err := rand.Read(rb[:]); err != nil {
		return "", side, peer, err
	}
	name = "objb" + hex.EncodeToString(rb[:])
	used := map[netip.Prefix]bool{}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP.To4()); ok {
					used[netip.PrefixFrom(ip, 30).Masked()] = true
				}
			}
		}
	}
	start := binary.BigEndian.Uint16(rb[:2]) &^ 3
	for i := 0; i < 1<<14; i++ {
		b := start + uint16(4*i)
		base := netip.AddrFrom4([4]byte{10, 79, byte(b >> 8), byte(b)})
		if used[netip.PrefixFrom(base, 30)] {
			continue
		}
		return name, base.Next(), base.Next().Next(), nil
	}
	return "", side, peer, errors.New("no free /30 in 10.79.0.0/16 for the host's side of the path")
}

// Write takes a packet off the wire (the program's, Delay after it left).
func (r *router) Write(b []byte) (int, error) {
	p, ok := parseIPv4(b)
	if !ok {
		return len(b), nil
	}
	switch {
	case p.proto() == protoUDP && p.dstPort() == 53:
		q := append([]byte(nil), b...)
		r.wg.Add(1)
		go r.lookup(q)
	case p.dst() == HostAddr && r.host != nil:
		translate(p, r.hostPeer, r.loop)
		_, _ = r.host.Write(b) // a failed write drops it, as a NIC does
	case p.proto() == protoTCP:
		r.tr.inject(b)
	default:
		r.unreachable.Add(1)
		r.push(icmpUnreachable(p))
	}
	return len(b), nil
}

func (r *router) lookup(q []byte) {
	defer r.wg.Done()
	p, _ := parseIPv4(q)
	t := p.payload()
	if len(t) < 8 {
		return
	}
	resp, ok := r.res.answer(r.ctx, t[8:])
	if !ok {
		return
	}
	r.lookups.Add(1)
	r.push(udpReply(p, resp))
}

// push queues a packet for the program; it waits for room (the wire reads
// as fast as it can) unless the router is closing.
func (r *router) push(b []byte) {
	if b == nil {
		return
	}
	select {
	case r.out <- b:
	case <-r.done:
	}
}

// fromHost carries the host's answers back: from 127.0.0.1 to the
// program's host-side address becomes from HostAddr to the program.
func (r *router) fromHost() {
	defer r.wg.Done()
	buf := make([]byte, max(r.mtu, 65535))
	for {
		n, err := r.host.Read(buf)
		if err != nil {
			return
		}
		p, ok := parseIPv4(buf[:n])
		if !ok || p.dst() != r.hostPeer || p.src() != r.loop {
			continue
		}
		b := append([]byte(nil), buf[:n]...)
		p.b = b
		translate(p, HostAddr, ProgramAddr)
		r.push(b)
	}
}

// Read gives the wire the next packet for the program.
func (r *router) Read(b []byte) (int, error) {
	select {
	case pkt := <-r.out:
		return copy(b, pkt), nil
	case <-r.done:
		return 0, os.ErrClosed
	}
}

// Close removes the host's device and stops the translator and the lookups.
func (r *router) Close() error {
	var err error
	r.closeOnce.Do(func() {
		close(r.done)
		r.cancel()
		r.tr.Close()
		if r.host != nil {
			err = r.host.Close()
		}
		r.wg.Wait()
	})
	return err
}

// icmpUnreachable is the ICMP "host unreachable" answer to p (nil for
// ICMP, which is not answered).
func icmpUnreachable(p ip4) []byte {
	if p.proto() == protoICMP {
		return nil
	}
	quote := p.b[:min(len(p.b), p.ihl+8)]
	out := make([]byte, 20+8+len(quote))
	out[0] = 0x45
	binary.BigEndian.PutUint16(out[2:], uint16(len(out)))
	out[8] = 64
	out[9] = protoICMP
	copy(out[12:16], p.b[16:20])
	copy(out[16:20], p.b[12:16])
	binary.BigEndian.PutUint16(out[10:], ^sum16(out[:20], 0))
	ic := out[20:]
	ic[0], ic[1] = 3, 1 // destination unreachable: host
	copy(ic[8:], quote)
	binary.BigEndian.PutUint16(ic[2:], ^sum16(ic, 0))
	return out
}
