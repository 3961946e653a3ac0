package netem

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/buffer"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/transport/tcp"
)

var lastServer atomic.Pointer[Conn]

// dialServed serves on port 80 of n and dials it, closing the connection
// when tb ends.
func dialServed(tb testing.TB, n *Network) *Conn {
	tb.Helper()
	serve(tb, n, 80)
	c, err := n.Dial(context.Background(), 80)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// listen listens on port of n's server stack until t ends.
func listen(t testing.TB, n *Network, port int) net.Listener {
	t.Helper()
	ln, err := n.Listen(port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// serve answers each 8-byte request with that many bytes.
func serve(t testing.TB, n *Network, port int) {
	ln := listen(t, n, port)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			lastServer.Store(c.(*Conn))
			go func() {
				defer c.Close()
				buf := make([]byte, 256<<10)
				var req [8]byte
				for {
					if _, err := io.ReadFull(c, req[:]); err != nil {
						return
					}
					left := int64(binary.BigEndian.Uint64(req[:]))
					for left > 0 {
						k, err := c.Write(buf[:min(left, int64(len(buf)))])
						if err != nil {
							return
						}
						left -= int64(k)
					}
				}
			}()
		}
	}()
}

func get(t testing.TB, c net.Conn, size int64) time.Duration {
	start := time.Now()
	var req [8]byte
	binary.BigEndian.PutUint64(req[:], uint64(size))
	if _, err := c.Write(req[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, c, size); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

func newNet(t testing.TB, rtt time.Duration, rate int64, loss float64) *Network {
	p := Path{Delay: rtt / 2, Rate: rate, Loss: loss}
	b := LinuxBuffers
	if v := os.Getenv("NETEM_RDEF"); v != "" {
		b.RecvDefault, _ = strconv.Atoi(v)
	}
	srv := b
	srv.SendMax = 4 * b.RecvMax
	return newNetBuffers(t, p, b, srv)
}

// newNetBuffers is newNet with the two stacks' buffers given.
func newNetBuffers(t testing.TB, p Path, client, server Buffers) *Network {
	n, err := New(Config{Up: p, Down: p, Client: client, Server: server})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// TestSlowStartRounds: across 80 ms, connect is one round trip and a cold
// GET takes the round trips of slow start (10 segments, doubling) ±1.
func TestSlowStartRounds(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("timing test")
	}
	rtt := 80 * time.Millisecond
	n := newNet(t, rtt, 1e9, 0)
	serve(t, n, 80)
	for _, tc := range []struct {
		size   int64
		rounds float64
	}{{1 << 20, 7}, {4 << 20, 9}} {
		var connect, cold float64
		for range 3 { // a shared machine's hiccups: the best of three
			start := time.Now()
			c, err := n.Dial(context.Background(), 80)
			if err != nil {
				t.Fatal(err)
			}
			con := float64(time.Since(start)) / float64(rtt)
			got := float64(get(t, c, tc.size)) / float64(rtt)
			c.Close()
			if cold == 0 || got < cold {
				connect, cold = con, got
			}
		}
		t.Logf("%d MiB: connect %.2f RTT, cold %.2f RTT (model %v)", tc.size>>20, connect, cold, tc.rounds)
		if connect < 0.95 || connect > 1.2 {
			t.Errorf("connect %.2f round trips, want 1", connect)
		}
		if cold < tc.rounds-1 || cold > tc.rounds+1 {
			t.Errorf("cold %d MiB: %.2f round trips, want %v ±1", tc.size>>20, cold, tc.rounds)
		}
	}
}

// TestLossAndQueue: with 2% loss each way and a short queue behind a
// slow link the bytes still arrive whole and in order, and the wire
// counts its drops of both kinds. (At 5% a random loss among slow start's
// first packets often kept the window under the 11 packets the queue and
// the path hold: with the fork's delayed ACK, patch 0007, 2 runs in 20
// had no queue drop; at 2%, none in 130.)
func TestLossAndQueue(t *testing.T) {
	t.Parallel()
	p := Path{Delay: time.Millisecond, Rate: 20e6, Queue: 8 * 1500, Loss: 0.02}
	n, err := New(Config{Up: p, Down: p})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ln, err := n.Listen(9)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	want := make([]byte, 1<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Write(want)
	}()
	c, err := n.Dial(context.Background(), 9)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (%v), want the 1 MiB sent, intact", len(got), err)
	}
	_, down := n.Stats()
	if down.LossDrops == 0 || down.QueueDrops == 0 {
		t.Errorf("down %+v: want random and queue drops counted", down)
	}
}

func TestBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{{MTU: 500}, {Up: Path{Loss: 1.5}}, {Down: Path{Delay: -1}}, {Up: Path{Queue: -1}}} {
		if n, err := New(cfg); err == nil {
			n.Close()
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// TestResetAndDialClosed: Reset drops a connection with a RST the peer
// reads as an error; dialing a port nobody listens on is refused.
func TestResetAndDialClosed(t *testing.T) {
	t.Parallel()
	n := newNet(t, 2*time.Millisecond, 0, 0)
	ln, err := n.Listen(7)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_ = c.(*Conn).Reset()
		}
	}()
	c, err := n.Dial(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.ReadAll(c); err == nil {
		t.Error("read after a reset: no error")
	}
	if _, err := n.Dial(context.Background(), 8); err == nil {
		t.Error("dial to a closed port succeeded")
	}
}

func BenchmarkThroughput(b *testing.B) {
	n := newNet(b, 2*time.Millisecond, 0, 0)
	c := dialServed(b, n)
	get(b, c, 1<<20)
	const size = 32 << 20
	b.SetBytes(size)
	for b.Loop() {
		get(b, c, size)
	}
}

func BenchmarkThroughputRTT(b *testing.B) {
	if v := os.Getenv("NETEM_CC"); v != "" {
		ccOpt = v
	}
	for _, rtt := range []time.Duration{0, 2 * time.Millisecond, 20 * time.Millisecond} {
		b.Run(rtt.String(), func(b *testing.B) {
			n := newNet(b, rtt, 0, 0)
			c := dialServed(b, n)
			get(b, c, 8<<20)
			const size = 32 << 20
			b.SetBytes(size)
			for b.Loop() {
				get(b, c, size)
			}
			up, down := n.Stats()
			b.Logf("up %+v down %+v client %+v server %+v %s", up, down, c.Info(), lastServer.Load().Info(), n.debug())
		})
	}
}

// TestAckEverySecondSegment: the receiving stack acknowledges every second
// full-sized segment, as Linux does, also when a whole flight arrives at
// once (no cap: the sender's window lands together; the fork's patch 0005)
// and not every one (patch 0007). Upstream gVisor acknowledged each batch
// of up to 100 once, and a lost ACK then cost the sender a retransmission
// timeout.
func TestAckEverySecondSegment(t *testing.T) {
	n := newNet(t, 40*time.Millisecond, 0, 0)
	c := dialServed(t, n)
	get(t, c, 4<<20)
	up, down := n.Stats()
	// The client's ACKs (up) against the server's data segments (down):
	// about one per two (0.41 measured; 0.24 to 0.35 with patch 0011's
	// option on, one per read while the reader is behind; Linux's on the
	// same wire 0.18 to 0.6); upstream's was 0.05 to 0.08, and with each
	// segment processed as it arrives but no delayed ACK (patch 0007) one
	// per segment.
	if r := float64(up.Packets) / float64(down.Packets); r < 0.15 || r > 0.7 {
		t.Errorf("%d ACKs for %d data segments: want between one per seven and one per two", up.Packets, down.Packets)
	}
	t.Logf("%d ACKs for %d data segments", up.Packets, down.Packets)
}

// TestAckPerRead: a receiver whose application reads behind the wire
// acknowledges once per read, not once per two segments, as Linux's does
// (__tcp_ack_snd_check sends the ACK at once only while the window to
// advertise does not shrink; fork patch 0011); with the patch's option
// off it acknowledges every second segment however far behind the
// reader is.
func TestAckPerRead(t *testing.T) {
	const size, piece = 2 << 20, 32 << 10
	acks := func(on bool) (acks, reads int64, late float64) {
		n := newNet(t, 40*time.Millisecond, 200_000_000, 0)
		// Patch 0016 (a Linux receiver's ACK pace, and its sender's PSH
		// marks) left out on both ends: this is patch 0011's rule alone.
		opt, pace := tcpip.TCPWindowAckOption(on), tcpip.TCPAckClockOption(false)
		for _, st := range []*stack.Stack{n.client, n.server} {
			for _, o := range []tcpip.SettableTransportProtocolOption{&opt, &pace} {
				if e := st.SetTransportProtocolOption(tcp.ProtocolNumber, o); e != nil {
					t.Fatal(e)
				}
			}
		}
		c := dialServed(t, n)
		var req [8]byte
		binary.BigEndian.PutUint64(req[:], size)
		if _, err := c.Write(req[:]); err != nil {
			t.Fatal(err)
		}
		up0, _ := n.Stats()
		meter := NewLateMeter(n.Stats)
		// 32 KiB every 5 ms: a quarter of the wire's 25 KB a millisecond.
		buf := make([]byte, piece)
		for got := 0; got < size; reads++ {
			time.Sleep(5 * time.Millisecond)
			k, err := c.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got += k
		}
		up, _ := n.Stats()
		return up.Packets - up0.Packets, reads, meter.Share()
	}
	off, _, offLate := acks(false)
	on, reads, onLate := acks(true)
	t.Logf("2 MiB read in %d pieces behind a 200 Mbit wire: %d ACKs, %d with the option off", reads, on, off)
	// 204 to 311 measured against 749 to 751: one per read once the
	// reader is behind, one per two segments before. Under the race
	// detector, with the wire's packets late, 234 to 461.
	if late := max(offLate, onLate); late > BusyShare {
		t.Logf("not judged: %.0f%% of the packets came late on this machine", 100*late)
	} else if on > off/2 {
		t.Errorf("%d ACKs for %d reads (%d with the option off): want under half", on, reads, off)
	}
}

// TestRACKRecovery: with RACK on, behind a quarter-BDP queue slow start
// overshoots and RACK marks hundreds of segments lost at once; with fork
// patch 0018 they go again at proportional rate reduction's pace, so the
// wire drops about as many packets as Linux's recovery loses there (156 of
// a 4 MiB GET at 100 ms and 50 Mbit), each retransmitted once. Upstream's
// RACK recovery (the option off) sent them together, and the queue dropped
// that burst in turn: 1,195.
func TestRACKRecovery(t *testing.T) {
	if raceDetector || testing.Short() {
		// Under the race detector the stacks fall behind the wire, and
		// the recoveries are the machine's (534 dropped, 1,498 sent again).
		t.Skip("timing test")
	}
	const size = 4 << 20
	run := func(on bool) (dropped, retransmits, timeouts int64, late float64, err error) {
		p := Path{Delay: 50 * time.Millisecond, Rate: 50e6, Queue: 156250}
		srv := LinuxBuffers
		srv.SendMax = 4 * LinuxBuffers.RecvMax
		n := newNetBuffers(t, p, LinuxBuffers, srv)
		// RACK on, as the lab does not run it (docs/design.md).
		rack, opt := tcpip.TCPRACKLossDetection, tcpip.TCPRACKRecoveryOption(on)
		for _, st := range []*stack.Stack{n.client, n.server} {
			for _, o := range []tcpip.SettableTransportProtocolOption{&rack, &opt} {
				if e := st.SetTransportProtocolOption(tcp.ProtocolNumber, o); e != nil {
					t.Fatal(e)
				}
			}
		}
		c := dialServed(t, n)
		meter := NewLateMeter(n.Stats)
		// Upstream's recovery has taken up to 177 retransmission
		// timeouts and a minute for this GET: bounded here.
		_ = c.SetDeadline(time.Now().Add(90 * time.Second))
		var req [8]byte
		binary.BigEndian.PutUint64(req[:], size)
		if _, err := c.Write(req[:]); err != nil {
			return 0, 0, 0, 0, err
		}
		if _, err := io.CopyN(io.Discard, c, size); err != nil {
			return 0, 0, 0, 0, err
		}
		_, down := n.Stats()
		k := lastServer.Load().Counts()
		return down.QueueDrops, k.Retransmits, k.Timeouts, meter.Share(), nil
	}
	onDrops, onRetx, onRTO, onLate, err := run(true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("4 MiB behind a quarter BDP: %d dropped, %d retransmitted, %d timeouts", onDrops, onRetx, onRTO)
	if onLate > BusyShare {
		t.Skipf("not judged: %.0f%% of the packets came late on this machine", 100*onLate)
	}
	if onDrops == 0 || onDrops > 400 || onRetx > onDrops+onDrops/4 {
		t.Errorf("with the patch %d dropped and %d retransmitted: want some drops, under 400 (Linux's 156), each retransmitted about once", onDrops, onRetx)
	}
	offDrops, offRetx, offRTO, offLate, err := run(false)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Logf("upstream's recovery did not finish the GET in 90 s")
		return
	}
	if err != nil {
		t.Fatalf("upstream's recovery: %v", err)
	}
	t.Logf("upstream's recovery: %d dropped, %d retransmitted, %d timeouts", offDrops, offRetx, offRTO)
	if offLate > BusyShare {
		t.Skipf("not judged: %.0f%% of the packets came late on this machine", 100*offLate)
	}
	// Upstream's recovery dropped 309 to 1,969 in ten runs, with timeouts
	// in most: the contrast is a half more drops, or a timeout.
	if offDrops < onDrops+onDrops/2 && offRTO == 0 {
		t.Errorf("upstream's recovery %d dropped with no timeout, the patch's %d: want half as many more, or a timeout", offDrops, onDrops)
	}
}

// TestSegmentsProcessedOnArrival: the receiver's stack processes segments
// on the wire's goroutine right after their delivery (fork patch 0006), so
// the ACK for every second full-sized segment is written there, as Linux's
// softirq sends it; upstream's processor goroutines took what had queued
// as a batch and its ACKs left together (behind an 8-packet queue at 200
// Mbit, their bursts doubled the lab's recoveries).
func TestSegmentsProcessedOnArrival(t *testing.T) {
	n := newNet(t, 40*time.Millisecond, 200_000_000, 0)
	serve(t, n, 80)
	var full, acks atomic.Int64
	ce, deliver, flush := n.clientEP, n.down.out, n.down.flush
	n.down.mu.Lock()
	n.down.out = func(proto tcpip.NetworkProtocolNumber, data buffer.Buffer) {
		if data.Size() >= 1400 {
			full.Add(1)
		}
		deliver(proto, data)
	}
	n.down.flush = func() {
		w := ce.written.Load()
		flush()
		acks.Add(ce.written.Load() - w)
	}
	n.down.mu.Unlock()
	c, err := n.Dial(context.Background(), 80)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	get(t, c, 4<<20)
	// About one ACK per two segments (patch 0007; one per read with patch
	// 0011's option on), written on the wire's goroutine; none without
	// patch 0006. 560 to 911 for 2,950 segments were seen.
	if a, n := acks.Load(), full.Load(); n == 0 || float64(a) < 0.1*float64(n) {
		t.Errorf("%d ACKs written on the wire's goroutine for %d full-sized segments: want at least one per ten", a, n)
	} else {
		t.Logf("%d ACKs written on the wire's goroutine for %d full-sized segments", a, n)
	}
}

// TestDelayedAck: the receiver acknowledges the first answer on a
// connection at once (Linux's quick ACKs) and delays the ACK of an answer
// to a request sent right after the last one (Linux's pingpong mode) by
// its 40 ms timeout, as the fork's patch 0007 does; upstream gVisor
// acknowledged both at once.
func TestDelayedAck(t *testing.T) {
	const oneWay = 20 * time.Millisecond
	n := newNet(t, 2*oneWay, 0, 0)
	c := dialServed(t, n)
	var mu sync.Mutex
	var answered, acked time.Time // the answer's arrival, its ACK's
	n.down.mu.Lock()
	n.up.mu.Lock()
	down, up := n.down.out, n.up.out
	n.down.out = func(proto tcpip.NetworkProtocolNumber, data buffer.Buffer) {
		if payload(data) > 0 {
			mu.Lock()
			answered, acked = time.Now(), time.Time{}
			mu.Unlock()
		}
		down(proto, data)
	}
	n.up.out = func(proto tcpip.NetworkProtocolNumber, data buffer.Buffer) {
		if payload(data) == 0 {
			mu.Lock()
			if acked.IsZero() {
				acked = time.Now()
			}
			mu.Unlock()
		}
		up(proto, data)
	}
	n.up.mu.Unlock()
	n.down.mu.Unlock()
	ackDelay := func() time.Duration {
		time.Sleep(150 * time.Millisecond) // any delayed ACK has left
		mu.Lock()
		defer mu.Unlock()
		if acked.IsZero() {
			t.Fatal("no ACK of the answer")
		}
		return acked.Sub(answered) - oneWay
	}
	get(t, c, 1000)
	if d := ackDelay(); d > 10*time.Millisecond {
		t.Errorf("the first answer's ACK left %s after it: want at once (a quick ACK)", d)
	} else {
		t.Logf("first answer: ACK after %s", d)
	}
	get(t, c, 1000)
	time.Sleep(10 * time.Millisecond)
	get(t, c, 1000) // sent 10 ms after the last answer: pingpong
	if d := ackDelay(); d < 30*time.Millisecond || d > 100*time.Millisecond {
		t.Errorf("an answer's ACK in an exchange left %s after it: want the 40 ms delayed ACK", d)
	} else {
		t.Logf("answer in an exchange: ACK after %s", d)
	}
}

// payload is the TCP payload's length in an IPv4 packet.
func payload(data buffer.Buffer) int {
	n, _ := segment(data)
	return n
}

// TestFullSegments: a sender whose application writes in pieces that are
// not multiples of the segment size still sends full-sized segments, as
// Linux's tcp_sendmsg fills the unsent tail of its queue (the fork's patch
// 0009); upstream gVisor sent each write's remainder as a short segment
// of its own, 64 more packets in a 4 MiB upload written 64 KiB at a time.
func TestFullSegments(t *testing.T) {
	const size, piece = 4 << 20, 10_000
	// A send buffer that takes the whole body at once, so that the
	// application is never behind its sender, however the scheduler
	// treats it: with Linux's 45 KiB to start, a loaded machine under the
	// race detector left the queue empty at 137 writes' ends.
	srv := LinuxBuffers
	srv.SendDefault, srv.SendMax = 2*size, 2*size
	n := newNetBuffers(t, Path{Delay: 20 * time.Millisecond, Rate: 100_000_000}, LinuxBuffers, srv)
	ln := listen(t, n, 80)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, piece)
		for left := size; left > 0; left -= piece {
			if _, err := c.Write(buf[:min(left, piece)]); err != nil {
				return
			}
		}
	}()
	var full, short atomic.Int64
	n.down.mu.Lock()
	deliver := n.down.out
	n.down.out = func(proto tcpip.NetworkProtocolNumber, data buffer.Buffer) {
		switch p := payload(data); {
		case p >= 1400:
			full.Add(1)
		case p > 0:
			short.Add(1)
		}
		deliver(proto, data)
	}
	n.down.mu.Unlock()
	c, err := n.Dial(context.Background(), 80)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.CopyN(io.Discard, c, size); err != nil {
		t.Fatal(err)
	}
	// 420 writes, all queued ahead of the window: a short segment only
	// where the sender had sent all it had (the first write, before the
	// next one was queued, and the body's end), not at every write's end
	// (upstream: 430).
	if s, f := short.Load(), full.Load(); s > size/piece/20 {
		t.Errorf("%d short segments and %d full-sized ones for %d writes of %d bytes: want full-sized segments across writes", s, f, size/piece, piece)
	} else {
		t.Logf("%d short segments, %d full-sized", s, f)
	}
}

// TestCwndGrowsOnlyWhenLimited: a sender its application holds below the
// congestion window does not grow the window, as Linux's
// tcp_is_cwnd_limited has it (the fork's patch 0010); upstream gVisor
// grew it on every ACK, so after ten round trips of 4 KiB every 10 ms
// the window was 124 segments where Linux's stays near twice what was
// out.
func TestCwndGrowsOnlyWhenLimited(t *testing.T) {
	n := newNet(t, 40*time.Millisecond, 0, 0)
	ln := listen(t, n, 80)
	const piece, pieces = 4 << 10, 40
	srv := make(chan *Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(srv)
			return
		}
		buf := make([]byte, piece)
		for range pieces {
			if _, err := c.Write(buf); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		srv <- c.(*Conn)
	}()
	c, err := n.Dial(context.Background(), 80)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.CopyN(io.Discard, c, piece*pieces); err != nil {
		t.Fatal(err)
	}
	s := <-srv
	if s == nil {
		t.Fatal("no connection accepted")
	}
	defer s.Close()
	// About 12 segments out at most: the window stays near twice that
	// (25 measured; 124 without the patch).
	if w := s.Info().Cwnd; w > 40 {
		t.Errorf("congestion window %d segments after %d writes of %d bytes 10 ms apart: want it held near what the sender had out", w, pieces, piece)
	} else {
		t.Logf("congestion window %d segments", w)
	}
}

// TestAdmitWhenSent: a packet is admitted behind the bottleneck as of when
// its sender sent it. Two full packets read together at 12 Mbit behind a
// queue of 2000 bytes: sent together, the second finds the first queued
// and is dropped; the first sent 5 ms earlier (its serialization, 1 ms, long
// over), the queue is empty for the second, and the first arrives 5 ms
// earlier than if sent now.
func TestAdmitWhenSent(t *testing.T) {
	for _, ago := range []time.Duration{0, 5 * time.Millisecond} {
		d := newDirection(Path{Delay: 20 * time.Millisecond, Rate: 12e6, Queue: 2000}, 40*time.Millisecond, 1500, 1, false)
		d.epoch = d.epoch.Add(-time.Second) // a wire that has run a while
		data := func() buffer.Buffer { return buffer.MakeWithData(make([]byte, 1500)) }
		before := d.now()
		d.sendAt(int64(ago), 1500, header.IPv4ProtocolNumber, data)
		d.send(1500, header.IPv4ProtocolNumber, data)
		want := int64(0)
		if ago == 0 {
			want = 1
		}
		if got := d.stats().QueueDrops; got != want {
			t.Errorf("first sent %v ago: %d dropped, want %d", ago, got, want)
		}
		// Due 20 ms plus its serialization after it was sent.
		due := time.Duration(d.fifo[d.head].at - before)
		if lo, hi := 21*time.Millisecond-ago-time.Millisecond, 21*time.Millisecond-ago+time.Millisecond; due < lo || due > hi {
			t.Errorf("sent %v ago: due %v after the send, want %v to %v", ago, due, lo, hi)
		}
		d.drain()
	}
}

// TestBursts: a sender's packets each within BurstGap of the one before
// are one burst, dropped ones too; and the wire's drops within a round
// trip of an episode's first are that episode's (Stats.Episodes), one a
// round trip or more later begins the next, and so does the first,
// however early.
func TestBursts(t *testing.T) {
	us := int64(time.Microsecond)
	for _, tc := range []struct {
		name string
		drop bool    // the times are drops (Episodes), not sends (Bursts)
		at   []int64 // when each packet was sent or dropped, in µs
		want int64
	}{
		{"one", false, []int64{5000}, 1},
		{"a window at once", false, []int64{5000, 5000, 5000, 5000}, 1},
		{"each within the gap", false, []int64{1000, 1900, 2800, 3700}, 1},
		{"two round trips", false, []int64{0, 12, 40000, 40012, 40024}, 2},
		{"a gap of exactly BurstGap", false, []int64{3000, 4000}, 2},
		{"stamped out of order", false, []int64{10000, 12000, 11500, 12100}, 2},
		{"no drops", true, nil, 0},
		{"a drop at the start", true, []int64{0}, 1},
		{"a window's drops", true, []int64{100e3, 101e3, 120e3, 139e3}, 1},
		{"drops exactly a round trip apart", true, []int64{100e3, 140e3}, 2},
		{"drops each within a round trip of the one before, not of the first", true, []int64{100e3, 130e3, 160e3, 190e3}, 2},
		{"drops three round trips apart", true, []int64{100e3, 200e3, 300e3}, 3},
	} {
		d := newDirection(Path{}, 40*time.Millisecond, 1500, 1, false)
		for _, at := range tc.at {
			d.mu.Lock()
			if tc.drop {
				d.dropped(at * us)
			} else {
				d.sent(at * us)
			}
			d.mu.Unlock()
		}
		st := d.stats()
		got, what := st.Bursts, "bursts"
		if tc.drop {
			got, what = st.Episodes, "episodes"
		}
		if got != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, got, what, tc.want)
		}
	}
	data := func() buffer.Buffer { return buffer.MakeWithData(make([]byte, 1500)) }
	// Through send: a queue of one packet drops the second of a pair, which
	// still counts in the burst the sender sent.
	d := newDirection(Path{Rate: 12e6, Queue: 1500}, 0, 1500, 1, false)
	d.epoch = d.epoch.Add(-time.Second) // a wire that has run a while
	d.sendAt(int64(20*time.Millisecond), 1500, header.IPv4ProtocolNumber, data)
	d.send(1500, header.IPv4ProtocolNumber, data)
	d.send(1500, header.IPv4ProtocolNumber, data)
	if st := d.stats(); st.Bursts != 2 || st.QueueDrops != 1 {
		t.Errorf("sent 20 ms ago, then a pair: %d bursts, %d dropped; want 2 and 1", st.Bursts, st.QueueDrops)
	}
	d.drain()
	// And the rest of a window sent at once, one episode; the next round
	// trip's window another.
	d = newDirection(Path{Rate: 12e6, Queue: 1500}, 40*time.Millisecond, 1500, 1, false)
	d.epoch = d.epoch.Add(-time.Second)
	for _, ago := range []time.Duration{50 * time.Millisecond, 0} {
		for range 4 {
			d.sendAt(int64(ago), 1500, header.IPv4ProtocolNumber, data)
		}
	}
	if st := d.stats(); st.QueueDrops != 6 || st.Episodes != 2 {
		t.Errorf("two windows of 4, a round trip apart, behind one packet: %d dropped in %d episodes; want 6 in 2", st.QueueDrops, st.Episodes)
	}
	d.drain()
}

// TestExact: an exact wire (Config.Exact), spinning before each packet's
// time, still hands none over before it, in order, and loses none; its
// spin ends when a new head arrives (send's wake), which may be due first.
func TestExact(t *testing.T) {
	const delay = 2 * time.Millisecond
	for _, precise := range []bool{true, false} {
		d := newDirection(Path{Delay: delay}, 2*delay, 1500, 5, precise)
		d.spin = int64(SpinFor)
		var mu sync.Mutex
		var order []uint64
		early := 0
		d.out = func(_ tcpip.NetworkProtocolNumber, b buffer.Buffer) {
			p := b.Flatten()
			b.Release()
			mu.Lock()
			defer mu.Unlock()
			if d.now() < int64(binary.BigEndian.Uint64(p[8:])) {
				early++
			}
			order = append(order, binary.BigEndian.Uint64(p))
		}
		go d.run()
		const n = 100
		for id := range uint64(n) {
			d.send(100, header.IPv4ProtocolNumber, func() buffer.Buffer {
				p := make([]byte, 16)
				binary.BigEndian.PutUint64(p, id)
				binary.BigEndian.PutUint64(p[8:], uint64(d.now()+int64(delay))) // its time
				return buffer.MakeWithData(p)
			})
			time.Sleep(150 * time.Microsecond)
		}
		time.Sleep(3 * delay)
		d.stop()
		mu.Lock()
		if len(order) != n || early != 0 {
			t.Errorf("precise %v: %d of %d handed over, %d before their time; want all, none early", precise, len(order), n, early)
		}
		for i, id := range order {
			if id != uint64(i) {
				t.Errorf("precise %v: packet %d handed over %d-th", precise, id, i)
				break
			}
		}
		mu.Unlock()
	}
	d := newDirection(Path{}, 0, 1500, 1, false)
	done := make(chan struct{})
	go func() { d.spinUntil(d.now() + int64(time.Hour)); close(done) }()
	d.wake <- struct{}{}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("spinning for a packet an hour away, a new head's wake did not end the spin")
	}
	d.spinUntil(d.now() - 1) // a time past: at once
}

// TestTardy: a packet handed over TardyBy or more after its time counts
// as tardy, one over lateBy as late and tardy both, one on time as
// neither.
func TestTardy(t *testing.T) {
	d := newDirection(Path{}, 40*time.Millisecond, 1500, 1, false)
	d.epoch = d.epoch.Add(-time.Second)
	d.out = func(_ tcpip.NetworkProtocolNumber, b buffer.Buffer) { b.Release() }
	for _, ago := range []time.Duration{-time.Second, 2 * TardyBy, 3 * time.Millisecond} {
		d.deliver(packet{at: d.now() - int64(ago), data: buffer.MakeWithData(make([]byte, 100))})
	}
	if st := d.stats(); st.Packets != 3 || st.Tardy != 2 || st.Late != 1 {
		t.Errorf("on time, %v late and 3 ms late: %d delivered, %d tardy, %d late; want 3, 2, 1", 2*TardyBy, st.Packets, st.Tardy, st.Late)
	}
}

// TestAckClock: with fork patch 0016 the server's sender marks the last
// segment of each of its GSO chunks with PSH, and the client's receiver
// acknowledges at once each segment that grows its window and each
// full-sized one with PSH its reader drained, as Linux's do. Linux's
// server marked 941 to 1,274 of about 2,950 data packets of a 4 MiB GET
// behind a quarter-BDP queue at 50 Mbit and 40 ms; the lab, marking only
// the ends of the server's 64 KiB writes, about 80.
func TestAckClock(t *testing.T) {
	const size = 4 << 20
	run := func(on bool) (data, pushed, acks int64, late float64) {
		srv := LinuxBuffers
		srv.SendMax = 4 * LinuxBuffers.RecvMax
		n := newNetBuffers(t, Path{Delay: 20 * time.Millisecond, Rate: 50_000_000, Queue: 62_500}, LinuxBuffers, srv)
		opt := tcpip.TCPAckClockOption(on)
		for _, s := range []*stack.Stack{n.client, n.server} {
			if e := s.SetTransportProtocolOption(tcp.ProtocolNumber, &opt); e != nil {
				t.Fatal(e)
			}
		}
		var d, p atomic.Int64
		n.down.mu.Lock()
		deliver := n.down.out
		n.down.out = func(proto tcpip.NetworkProtocolNumber, b buffer.Buffer) {
			if k, psh := segment(b); k > 0 {
				d.Add(1)
				if psh {
					p.Add(1)
				}
			}
			deliver(proto, b)
		}
		n.down.mu.Unlock()
		// The ACKs while the first 150 data segments arrive, slow start's
		// first rounds, where the receiver's window grows on each: one
		// per segment with the option. Later the machine's pace decides
		// (a reader behind under the race detector stops the window's
		// growth), so the whole transfer's count is not compared.
		var early atomic.Int64
		n.up.mu.Lock()
		ack := n.up.out
		n.up.out = func(proto tcpip.NetworkProtocolNumber, b buffer.Buffer) {
			if k, _ := segment(b); k == 0 && d.Load() < 150 {
				early.Add(1)
			}
			ack(proto, b)
		}
		n.up.mu.Unlock()
		meter := NewLateMeter(n.Stats)
		c := dialServed(t, n)
		get(t, c, size)
		return d.Load(), p.Load(), early.Load(), meter.Share()
	}
	offData, offPushed, offAcks, offLate := run(false)
	onData, onPushed, onAcks, onLate := run(true)
	t.Logf("option off: %d of %d data packets with PSH, %d ACKs for the first 150; on: %d of %d, %d ACKs", offPushed, offData, offAcks, onPushed, onData, onAcks)
	// About a third (a chunk of 2 to 5 segments); 24% under the race
	// detector, whose late ACKs free larger rooms.
	if share := float64(onPushed) / float64(onData); share < 0.15 {
		t.Errorf("option on: %d of %d data packets with PSH, want each chunk's end marked (over 15%%)", onPushed, onData)
	}
	if share := float64(offPushed) / float64(offData); share > 0.1 {
		t.Errorf("option off: %d of %d data packets with PSH, want only the writes' ends", offPushed, offData)
	}
	if late := max(offLate, onLate); late > BusyShare {
		// When the wire delivers late the ACKs are the machine's pace
		// (under the race detector the ACK counts went either way).
		t.Logf("ACKs not judged: %.0f%% of the packets came late on this machine", 100*late)
	} else if onAcks < offAcks*5/4 {
		t.Errorf("%d ACKs for the first 150 data segments with the option, %d without: want a quarter more at least, one per segment while the window grows", onAcks, offAcks)
	}
}

// segment is a TCP packet's payload length and whether it carries PSH;
// -1 for anything else.
func segment(data buffer.Buffer) (int, bool) {
	b := data.Flatten()
	ip := header.IPv4(b)
	if len(b) < header.IPv4MinimumSize || !ip.IsValid(len(b)) || ip.TransportProtocol() != header.TCPProtocolNumber {
		return -1, false
	}
	tcp := header.TCP(ip.Payload())
	if len(tcp) < header.TCPMinimumSize {
		return -1, false
	}
	return len(tcp) - int(tcp.DataOffset()), tcp.Flags().Contains(header.TCPFlagPsh)
}

// TestSegmentSize: with fork patch 0017 (which New sets) the lab's data
// segments carry Linux's 1448 bytes on the 1500-byte MTU, room left for
// the timestamps only, and no packet exceeds the MTU; upstream's carried
// 1420, room kept for SACK blocks a download's sender never sends, so the
// same GET took 2% more packets than Linux's.
func TestSegmentSize(t *testing.T) {
	const size = 1 << 20
	for _, c := range []struct {
		on   bool
		want int
	}{{on: true, want: 1448}, {on: false, want: 1420}} {
		n := newNet(t, 2*time.Millisecond, 0, 0)
		opt := tcpip.TCPMSSCacheOption(c.on)
		for _, s := range []*stack.Stack{n.client, n.server} {
			if e := s.SetTransportProtocolOption(tcp.ProtocolNumber, &opt); e != nil {
				t.Fatal(e)
			}
		}
		mtu := int64(cmp.Or(n.cfg.MTU, 1500))
		var largest, over, data atomic.Int64
		n.down.mu.Lock()
		deliver := n.down.out
		n.down.out = func(proto tcpip.NetworkProtocolNumber, b buffer.Buffer) {
			if k, _ := segment(b); k > 0 {
				data.Add(1)
				if int64(k) > largest.Load() {
					largest.Store(int64(k))
				}
			}
			if b.Size() > mtu {
				over.Add(1)
			}
			deliver(proto, b)
		}
		n.down.mu.Unlock()
		c0 := dialServed(t, n)
		get(t, c0, size)
		if got := int(largest.Load()); got != c.want {
			t.Errorf("option %v: data segments of up to %d bytes, want %d", c.on, got, c.want)
		}
		if over.Load() > 0 {
			t.Errorf("option %v: %d packets over the %d-byte MTU", c.on, over.Load(), mtu)
		}
		if least := int64(size/c.want) + 1; data.Load() < least || data.Load() > least+4 {
			t.Errorf("option %v: %d data packets for %d bytes, want %d to %d", c.on, data.Load(), size, least, least+4)
		}
	}
}
