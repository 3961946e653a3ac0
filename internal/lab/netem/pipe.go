package netem

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/buffer"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
)

// Pipe is the same wire as Network's without the stacks: it carries the IP
// packets two devices read and write (TUN devices, each in a network
// namespace of its own), so the TCP on the wire is the kernels' own. It is
// the lab's reference for its own stacks, and the path a program's own TCP
// takes in `lab exec`.
type Pipe struct {
	up, down       *direction
	client, server io.ReadWriteCloser
	wg             sync.WaitGroup
	closeOnce      sync.Once
}

// NewPipe starts carrying packets: what client writes crosses Up and is
// written to server; what server writes crosses Down. Each read of a
// device is one IP packet, each write one (a TUN device without packet
// information). Close stops the wire and closes both devices.
func NewPipe(cfg Config, client, server io.ReadWriteCloser) (*Pipe, error) {
	if cfg.MTU == 0 {
		cfg.MTU = 1500
	}
	for _, p := range []Path{cfg.Up, cfg.Down} {
		if err := p.Check(); err != nil {
			return nil, err
		}
	}
	rtt := cfg.Up.Delay + cfg.Down.Delay
	// Its deliveries keep Go's timers, not Sleep's, unless cfg.Precise:
	// Linux's receive autotuning stalls when packets arrive each at its
	// own time (docs/design.md#the-kernel-references-wire-keeps-gos-timers).
	up, down := seeds(cfg.Seed)
	p := &Pipe{up: newDirection(cfg.Up, rtt, cfg.MTU, up, cfg.Precise), down: newDirection(cfg.Down, rtt, cfg.MTU, down, cfg.Precise), client: client, server: server}
	p.up.out, p.down.out = writeTo(server), writeTo(client)
	if cfg.Exact {
		p.up.spin, p.down.spin = int64(SpinFor), int64(SpinFor)
	}
	go p.up.run()
	go p.down.run()
	p.wg.Add(2)
	go p.read(client, p.up, cfg.MTU, !cfg.AdmitOnRead)
	go p.read(server, p.down, cfg.MTU, !cfg.AdmitOnRead)
	return p, nil
}

// writeTo delivers arriving packets to a device. A write that fails (the
// device closing, its queue full) drops the packet, as a NIC does.
func writeTo(dev io.Writer) func(tcpip.NetworkProtocolNumber, buffer.Buffer) {
	return func(_ tcpip.NetworkProtocolNumber, data buffer.Buffer) {
		b := data.Flatten()
		data.Release()
		_, _ = dev.Write(b)
	}
}

// SendStamper is a device that says how long ago its kernel sent a packet
// just read from it (netns.Stamps): the wire admits the packet then, as it
// admits a lab stack's packet when the stack sends it, not when its own
// reader got to it.
type SendStamper interface {
	SentAgo(pkt []byte) (time.Duration, bool)
}

// read carries dev's packets onto d; where stamp and dev can say when its
// kernel sent each, d admits it then.
func (p *Pipe) read(dev io.Reader, d *direction, mtu int, stamp bool) {
	defer p.wg.Done()
	buf := make([]byte, max(mtu, 65535))
	var stamper SendStamper
	if stamp {
		stamper, _ = dev.(SendStamper)
	}
	for {
		n, err := dev.Read(buf)
		if err != nil {
			return
		}
		var ago time.Duration
		stamped := false
		if stamper != nil {
			ago, stamped = stamper.SentAgo(buf[:n])
		}
		if n < header.IPv4MinimumSize || header.IPVersion(buf[:n]) != header.IPv4Version {
			continue // the kernel's IPv6 router solicitations and the like
		}
		if stamped {
			d.stamped.Add(1)
		}
		d.sendAt(int64(ago), n, header.IPv4ProtocolNumber, func() buffer.Buffer { return buffer.MakeWithData(append([]byte(nil), buf[:n]...)) })
	}
}

// Config is the configuration in force, with the queues filled in.
func (p *Pipe) Config() (up, down Path) {
	up, down = p.up.p, p.down.p
	up.Queue, down.Queue = p.up.queue, p.down.queue
	return up, down
}

// Stats returns the counters of each direction.
func (p *Pipe) Stats() (up, down Stats) { return p.up.stats(), p.down.stats() }

// Close stops the wire and closes both devices.
func (p *Pipe) Close() error {
	var err error
	p.closeOnce.Do(func() {
		p.up.stop()
		p.down.stop()
		err = errors.Join(p.client.Close(), p.server.Close())
		p.wg.Wait()
	})
	if err != nil {
		return fmt.Errorf("netem: close pipe: %w", err)
	}
	return nil
}
