package netem

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// direction is one way of the wire. A packet is admitted (or dropped) when
// the stack writes it: its departure from the bottleneck follows the one
// before it by its serialization time (size/rate), and the bytes not yet
// departed are the queue. It arrives Delay (± Jitter) after departing, never
// before the packet ahead of it, so arrival times only grow and the packets
// in flight are a FIFO: one goroutine sleeps until the head is due, on
// Sleep's precise timer (Go's own fire up to 1 ms late).
type direction struct {
	p     Path
	queue int // drop-tail limit in bytes
	// out receives each packet as it arrives; it owns the data.
	out   func(proto tcpip.NetworkProtocolNumber, data buffer.Buffer)
	epoch time.Time

	mu         sync.Mutex
	fifo       []packet // ring: fifo[head:] then fifo[:tail]
	head, n    int
	lastDepart int64 // ns since epoch when the bottleneck frees up
	lastArrive int64
	rng        *rand.Rand
	wake       chan struct{}
	done       chan struct{}
	exited     chan struct{}
	stopOnce   sync.Once
	precise    *preciseTimer // nil where there is none: Go's timer

	packets, bytes, queueDrops, lossDrops, late atomic.Int64
	lateBy                                      int64 // ns
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

// newDirection starts one way of the wire; precise times its deliveries
// with Sleep's timer rather than Go's.
func newDirection(p Path, rtt time.Duration, mtu int, precise bool) *direction {
	d := &direction{p: p, queue: p.Queue, epoch: time.Now(), wake: make(chan struct{}, 1),
		done: make(chan struct{}), exited: make(chan struct{}), fifo: make([]packet, 256),
		rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())), lateBy: int64(lateBy(rtt))}
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

// send admits one packet of size bytes onto the wire, or drops it; data
// is called only for an admitted packet, for its contents.
func (d *direction) send(size int, proto tcpip.NetworkProtocolNumber, data func() buffer.Buffer) {
	d.mu.Lock()
	if d.p.Loss > 0 && d.rng.Float64() < d.p.Loss {
		d.mu.Unlock()
		d.lossDrops.Add(1)
		return
	}
	now := d.now()
	depart := now
	if d.p.Rate > 0 {
		start := max(now, d.lastDepart)
		backlog := float64(start-now) * float64(d.p.Rate) / 8 / 1e9 // bytes still queued
		if int(backlog)+size > d.queue {
			d.mu.Unlock()
			d.queueDrops.Add(1)
			return
		}
		depart = start + int64(float64(size)*8*1e9/float64(d.p.Rate))
		d.lastDepart = depart
	}
	delay := int64(d.p.Delay)
	if j := int64(d.p.Jitter); j > 0 {
		delay += d.rng.Int64N(2*j+1) - j
	}
	at := max(depart+max(delay, 0), d.lastArrive)
	d.lastArrive = at
	if d.n == len(d.fifo) {
		grown := make([]packet, 2*len(d.fifo))
		for i := range d.n {
			grown[i] = d.fifo[(d.head+i)%len(d.fifo)]
		}
		d.fifo, d.head = grown, 0
	}
	d.fifo[(d.head+d.n)%len(d.fifo)] = packet{at: at, proto: proto, data: data()}
	d.n++
	first := d.n == 1
	d.mu.Unlock()
	if first {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
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
		d.mu.Unlock()
		for i := range due {
			d.deliver(due[i])
			due[i] = packet{}
		}
		due = due[:0]
		if next >= 0 && precise != nil {
			// A packet sent meanwhile arrives after the head (arrival times
			// only grow), so the wait for the head need not watch for it.
			if precise.wait(time.Duration(next - d.now())) {
				continue
			}
			select {
			case <-d.done:
				d.drain()
				return
			default:
				precise = nil // the timer failed: Go's from now on
			}
		}
		if next >= 0 {
			timer.Reset(time.Duration(next - d.now()))
			select {
			case <-timer.C:
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

func (d *direction) deliver(p packet) {
	if d.now()-p.at > d.lateBy {
		d.late.Add(1)
	}
	d.packets.Add(1)
	d.bytes.Add(p.data.Size())
	d.out(p.proto, p.data)
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
	return Stats{Packets: d.packets.Load(), Bytes: d.bytes.Load(), QueueDrops: d.queueDrops.Load(), LossDrops: d.lossDrops.Load(), Late: d.late.Load()}
}

// endpoint is a stack's network interface: what the stack writes goes onto
// its outgoing direction; what arrives is delivered to its dispatcher.
type endpoint struct {
	mu   sync.RWMutex
	disp stack.NetworkDispatcher
	mtu  uint32
	out  *direction
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
