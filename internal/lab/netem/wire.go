package netem

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/buffer"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
)

// direction is one way of the wire. A packet is admitted (or dropped) when
// the stack writes it: its departure from the bottleneck follows the one
// before it by its serialization time (size/rate), and the bytes not yet
// departed are the queue. It arrives Delay (± Jitter) after departing, never
// before the packet ahead of it, so the packets in flight are a FIFO
// ordered by arrival: one goroutine sleeps until the head is due, on
// Sleep's precise timer (Go's own fire up to 1 ms late). A reordered packet
// (Path.Reorder) skips the delay: it arrives as it departs, ahead of the
// packets still waiting out theirs, and wakes the goroutine early when it
// becomes the head.
type direction struct {
	p     Path
	queue int // drop-tail limit in bytes
	// out receives each packet as it arrives; it owns the data.
	out func(proto tcpip.NetworkProtocolNumber, data buffer.Buffer)
	// flush, where set, follows each packet out received: the receiving
	// stack processes it then (endpoint.queued).
	flush func()
	epoch time.Time

	mu          sync.Mutex
	fifo        []packet // ring: fifo[head:] then fifo[:tail]
	head, n     int
	lastDepart  int64 // ns since epoch when the bottleneck frees up
	lastArrive  int64 // of the last packet that took the delay
	lastSend    int64 // ns since epoch of the latest packet sent (Stats.Bursts)
	lastEpisode int64 // ns since epoch of the drop that began the latest episode (Stats.Episodes)
	spin        int64 // ns before a packet's time that run stops sleeping and spins (Config.Exact)
	rtt         int64 // ns: the path's round trip, an episode's length
	rng         *rand.Rand
	ge          geState    // the bursty loss model's state
	reorderRnd  correlated // reordering's correlated draw
	armed       bool       // run waits on precise for the head: a new head re-arms it
	wake        chan struct{}
	done        chan struct{}
	exited      chan struct{}
	stopOnce    sync.Once
	precise     *preciseTimer // nil where there is none: Go's timer

	packets, bytes, queueDrops, lossDrops, late, tardy, reordered, duplicated, stamped, bursts, episodes atomic.Int64
	lateBy                                                                                               int64 // ns
}

// lateBy is how far past its due time a delivered packet counts as late
// (the machine did not give the wire its CPU in time): 2 ms, or a 20th of
// the round trip on a longer path, where being 2 ms late shifts a
// transfer's time by under 2%.
func lateBy(rtt time.Duration) time.Duration { return max(2*time.Millisecond, rtt/20) }

type packet struct {
	at    int64
	proto tcpip.NetworkProtocolNumber
	data  buffer.Buffer
}

// seeds are the two directions' seeds for a Config's Seed (0: random).
func seeds(seed uint64) (up, down uint64) {
	if seed == 0 {
		seed = rand.Uint64()
	}
	return seed, seed + 1
}

// newDirection starts one way of the wire, its random choices drawn from
// seed; precise times its deliveries with Sleep's timer rather than Go's.
func newDirection(p Path, rtt time.Duration, mtu int, seed uint64, precise bool) *direction {
	d := &direction{p: p, queue: p.Queue, epoch: time.Now(), wake: make(chan struct{}, 1),
		done: make(chan struct{}), exited: make(chan struct{}), fifo: make([]packet, 256),
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), lateBy: int64(lateBy(rtt)),
		lastSend: math.MinInt64 / 2, lastEpisode: math.MinInt64 / 2, // the first packet starts a burst, the first drop an episode
		rtt: int64(rtt)}
	if precise {
		d.precise = newPreciseTimer()
	}
	if d.queue == 0 && p.Rate > 0 {
		bdp := int(float64(p.Rate) / 8 * rtt.Seconds())
		// A floor of 256 packets: on a short path the stacks' own CPU time
		// stretches the round trip several times over (2 ms measured as 7
		// on a busy machine), and a queue of one nominal BDP starved the link.
		d.queue = max(bdp, 256*mtu)
	}
	return d
}

func (d *direction) now() int64 { return int64(time.Since(d.epoch)) }

// TardyBy is how far past its due time a delivered packet counts as tardy
// (Stats.Tardy): over a packet's time at 200 Mbit, and more than the few
// tens of microseconds the wire takes when its goroutine's CPU is awake.
// A CPU that sleeps between a wire's packets wakes later than that
// (docs/lab.md, "The wire's own precision behind 8 packets").
const TardyBy = 100 * time.Microsecond

// BurstGap is the silence that ends a burst (Stats.Bursts): a sender's
// packets each sent within a millisecond of the one before are one burst,
// as a window's segments leave on one ACK or a few close together.
const BurstGap = time.Millisecond

// sent counts a packet its sender sent at (ns since the epoch) in the
// burst it belongs to; d.mu is held. Packets come in the order their
// senders sent them, but for a Pipe's stamps a few microseconds apart.
func (d *direction) sent(at int64) {
	if at-d.lastSend >= int64(BurstGap) {
		d.bursts.Add(1)
	}
	d.lastSend = max(d.lastSend, at)
}

// dropped counts a drop, at ns since the epoch, in its episode; d.mu is
// held. A drop a round trip or more after the one that began the latest
// episode begins another: a sender cuts its window once for the drops of
// one round trip, so two stacks that drop as many packets in different
// episodes regrow their windows a different number of times.
func (d *direction) dropped(at int64) {
	if at-d.lastEpisode >= d.rtt {
		d.episodes.Add(1)
		d.lastEpisode = at
	}
}

// lose draws whether the loss model drops the next packet.
func (d *direction) lose() bool {
	switch {
	case d.p.Bursty.On():
		return d.ge.lose(d.p.Bursty, d.rng)
	case d.p.Loss > 0:
		return d.rng.Float64() < d.p.Loss
	}
	return false
}

// send admits one packet of size bytes onto the wire, or drops it; data
// is called only for an admitted packet, for its contents. As netem does,
// it first draws whether the packet is duplicated, then whether it is
// lost: a duplicated packet that is lost still sends one copy, and
// otherwise the copy crosses the wire on its own (its own loss, queue,
// delay and reordering, never duplicated again).
func (d *direction) send(size int, proto tcpip.NetworkProtocolNumber, data func() buffer.Buffer) {
	d.sendAt(0, size, proto, data)
}

// sendAt is send for a packet its sender sent ago ns before now: it takes
// its place behind the bottleneck as of then.
func (d *direction) sendAt(ago int64, size int, proto tcpip.NetworkProtocolNumber, data func() buffer.Buffer) {
	d.mu.Lock()
	at := d.now() - ago
	d.sent(at)
	dup := d.p.Duplicate > 0 && d.rng.Float64() < d.p.Duplicate
	lost := d.lose()
	if lost && !dup {
		d.dropped(at)
		d.mu.Unlock()
		d.lossDrops.Add(1)
		return
	}
	b := data()
	var dupe buffer.Buffer
	if dup && !lost {
		dupe = b.Clone()
	}
	head := d.admit(ago, size, proto, b)
	if dup && !lost {
		if d.lose() {
			dupe.Release()
			d.dropped(at)
			d.lossDrops.Add(1)
		} else {
			d.duplicated.Add(1)
			head = d.admit(ago, size, proto, dupe) || head
		}
	}
	if head && d.armed {
		// run sleeps on the precise timer until the old head: wake it
		// for the new one (under mu, so run's own arming cannot undo it).
		d.precise.arm(time.Duration(d.fifo[d.head].at - d.now() - d.spin))
	}
	d.mu.Unlock()
	if head {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// admit queues one packet, sent ago ns before now, behind the bottleneck,
// or drops it (the queue full); d.mu is held. It reports whether the
// packet is the new head of the wire (the next to arrive).
func (d *direction) admit(ago int64, size int, proto tcpip.NetworkProtocolNumber, data buffer.Buffer) bool {
	now := d.now() - ago
	depart := now
	if d.p.Rate > 0 {
		start := max(now, d.lastDepart)
		backlog := float64(start-now) * float64(d.p.Rate) / 8 / 1e9 // bytes still queued
		if int(backlog)+size > d.queue {
			data.Release()
			d.dropped(now)
			d.queueDrops.Add(1)
			return false
		}
		depart = start + int64(float64(size)*8*1e9/float64(d.p.Rate))
		d.lastDepart = depart
	}
	if d.n == len(d.fifo) {
		grown := make([]packet, 2*len(d.fifo))
		for i := range d.n {
			grown[i] = d.fifo[(d.head+i)%len(d.fifo)]
		}
		d.fifo, d.head = grown, 0
	}
	if r := d.p.Reorder; r.Share > 0 && d.reorderRnd.next(r.Share, r.Correlation, d.rng) {
		// Sent at once (netem puts it at the head of its queue): it
		// arrives as it leaves the bottleneck, ahead of every packet due
		// later.
		d.reordered.Add(1)
		return d.insert(packet{at: depart, proto: proto, data: data})
	}
	delay := int64(d.p.Delay)
	if j := int64(d.p.Jitter); j > 0 {
		delay += d.rng.Int64N(2*j+1) - j
	}
	at := max(depart+max(delay, 0), d.lastArrive)
	d.lastArrive = at
	// It arrives after every packet in flight (a reordered one left no
	// later than it and skipped the delay): the tail.
	d.fifo[(d.head+d.n)%len(d.fifo)] = packet{at: at, proto: proto, data: data}
	d.n++
	return d.n == 1
}

// insert places p among the packets in flight by its arrival, after those
// due at the same time, moving the fewer of the packets before and after
// it; it reports whether p is the new head.
func (d *direction) insert(p packet) bool {
	size := len(d.fifo)
	at := func(i int) *packet { return &d.fifo[(d.head+i)%size] }
	i := sort.Search(d.n, func(i int) bool { return at(i).at > p.at })
	if i < d.n-i {
		d.head = (d.head - 1 + size) % size
		for j := 0; j < i; j++ {
			*at(j) = *at(j + 1)
		}
	} else {
		for j := d.n; j > i; j-- {
			*at(j) = *at(j - 1)
		}
	}
	*at(i) = p
	d.n++
	return i == 0
}

// run delivers packets as they come due, until stop.
func (d *direction) run() {
	defer close(d.exited)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	precise := d.precise
	var due []packet
	for {
		d.mu.Lock()
		d.armed = false
		now := d.now()
		next := int64(-1)
		for d.n > 0 {
			p := &d.fifo[d.head]
			if p.at > now {
				next = p.at
				break
			}
			due = append(due, *p)
			*p = packet{}
			d.head = (d.head + 1) % len(d.fifo)
			d.n--
		}
		spinning := next >= 0 && d.spin > 0 && next-now <= d.spin
		if next >= 0 && precise != nil && !spinning {
			// Armed under mu: a packet that becomes the head meanwhile
			// (reordered) re-arms it for its own time (send).
			if precise.arm(time.Duration(next - now - d.spin)) {
				d.armed = true
			} else {
				precise = nil // the timer failed: Go's from now on
			}
		}
		armed := d.armed
		d.mu.Unlock()
		for i := range due {
			d.deliver(due[i])
			due[i] = packet{}
		}
		due = due[:0]
		if spinning {
			d.spinUntil(next)
			continue
		}
		if armed {
			if precise.block() {
				continue
			}
			select {
			case <-d.done:
				d.drain()
				return
			default:
				precise = nil // the timer failed: Go's from now on
				continue
			}
		}
		if next >= 0 {
			timer.Reset(time.Duration(next - d.now() - d.spin))
			select {
			case <-timer.C:
			case <-d.wake:
				timer.Stop()
			case <-d.done:
				timer.Stop()
				d.drain()
				return
			}
			continue
		}
		select {
		case <-d.wake:
		case <-d.done:
			d.drain()
			return
		}
	}
}

// SpinFor is how long before a packet's time an exact wire (Config.Exact)
// stops sleeping: longer than the 100 to 250 µs a sleeping CPU took to
// wake on the machine the figures in docs/lab.md come from.
const SpinFor = 300 * time.Microsecond

// spinUntil keeps run's CPU awake until at, or until a new head arrives
// (send's wake), yielding to the stacks' goroutines meanwhile.
func (d *direction) spinUntil(at int64) {
	for d.now() < at {
		select {
		case <-d.wake:
			return
		default:
		}
		runtime.Gosched()
	}
}

func (d *direction) deliver(p packet) {
	switch l := d.now() - p.at; {
	case l > d.lateBy:
		d.late.Add(1)
		fallthrough
	case l >= int64(TardyBy):
		d.tardy.Add(1)
	}
	d.packets.Add(1)
	d.bytes.Add(p.data.Size())
	d.out(p.proto, p.data)
	if d.flush != nil {
		d.flush()
	}
}

func (d *direction) drain() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.n > 0 {
		d.fifo[d.head].data.Release()
		d.fifo[d.head] = packet{}
		d.head = (d.head + 1) % len(d.fifo)
		d.n--
	}
}

func (d *direction) stop() {
	d.stopOnce.Do(func() {
		close(d.done)
		if d.precise != nil {
			d.precise.interrupt()
		}
	})
	<-d.exited
	if d.precise != nil {
		d.precise.close()
	}
}

func (d *direction) stats() Stats {
	return Stats{Packets: d.packets.Load(), Bytes: d.bytes.Load(), QueueDrops: d.queueDrops.Load(), LossDrops: d.lossDrops.Load(),
		Reordered: d.reordered.Load(), Duplicated: d.duplicated.Load(), Late: d.late.Load(), Tardy: d.tardy.Load(), Stamped: d.stamped.Load(), Bursts: d.bursts.Load(), Episodes: d.episodes.Load()}
}

// endpoint is a stack's network interface: what the stack writes goes onto
// its outgoing direction; what arrives is delivered to its dispatcher.
type endpoint struct {
	mu   sync.RWMutex
	disp stack.NetworkDispatcher
	mtu  uint32
	out  *direction
	// queued is the TCP protocol's ProcessQueued (fork patch 0006): the
	// wire calls it after each delivery (direction.flush), so that the
	// stack processes each segment on the wire's goroutine as it arrives,
	// as Linux's softirq does (a batch at a time, the packets due
	// together, kept most of the gap behind 8-packet queues:
	// third_party/gvisor/PATCHES.md).
	queued func()
	// written counts the packets the stack wrote (for tests).
	written atomic.Int64
}

var _ stack.LinkEndpoint = (*endpoint)(nil)

func (e *endpoint) dispatcher() stack.NetworkDispatcher {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.disp
}

func (e *endpoint) WritePackets(pkts stack.PacketBufferList) (int, tcpip.Error) {
	for _, pkt := range pkts.AsSlice() {
		e.out.send(pkt.Size(), pkt.NetworkProtocolNumber, pkt.ToBuffer)
	}
	e.written.Add(int64(pkts.Len()))
	return pkts.Len(), nil
}

// deliver hands an arriving packet to the stack.
func (e *endpoint) deliver(proto tcpip.NetworkProtocolNumber, data buffer.Buffer) {
	disp := e.dispatcher()
	if disp == nil {
		data.Release()
		return
	}
	pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: data})
	disp.DeliverNetworkPacket(proto, pkt)
	pkt.DecRef()
}

func (e *endpoint) Attach(d stack.NetworkDispatcher) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.disp = d
}

func (e *endpoint) IsAttached() bool  { return e.dispatcher() != nil }
func (e *endpoint) Wait()             {}
func (e *endpoint) MTU() uint32       { return e.mtu }
func (e *endpoint) SetMTU(mtu uint32) { e.mtu = mtu }

// Capabilities: checksums are skipped, as on loopback: the wire never
// corrupts a packet, and computing them costs a third of the stacks' CPU.
func (e *endpoint) Capabilities() stack.LinkEndpointCapabilities {
	return stack.CapabilityRXChecksumOffload | stack.CapabilityTXChecksumOffload
}
func (e *endpoint) MaxHeaderLength() uint16                 { return 0 }
func (e *endpoint) LinkAddress() tcpip.LinkAddress          { return "" }
func (e *endpoint) SetLinkAddress(tcpip.LinkAddress)        {}
func (e *endpoint) ARPHardwareType() header.ARPHardwareType { return header.ARPHardwareNone }
func (e *endpoint) AddHeader(*stack.PacketBuffer)           {}
func (e *endpoint) ParseHeader(*stack.PacketBuffer) bool    { return true }
func (e *endpoint) Close()                                  {}
func (e *endpoint) SetOnCloseAction(func())                 {}
