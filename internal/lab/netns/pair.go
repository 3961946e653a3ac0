package netns

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/objbench/objbench/internal/lab/netem"
)

// Pair is the Linux reference path: two namespaces, each with a TUN
// device, joined by the lab's wire, with the kernel's TCP at both ends.
// The client's address is netem.ClientAddr, the server's netem.ServerAddr.
type Pair struct {
	Client, Server *NS
	Pipe           *netem.Pipe
}

// NewPair makes both namespaces and starts the wire between them; every
// failure leaves nothing behind.
func NewPair(cfg netem.Config) (_ *Pair, err error) {
	if cfg.MTU == 0 {
		cfg.MTU = 1500
	}
	p := &Pair{}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if p.Client, err = New(); err != nil {
		return nil, err
	}
	if p.Server, err = New(); err != nil {
		return nil, err
	}
	ct, err := p.Client.TUN("wire0", netem.ClientAddr, 24, cfg.MTU)
	if err != nil {
		return nil, err
	}
	st, err := p.Server.TUN("wire0", netem.ServerAddr, 24, cfg.MTU)
	if err != nil {
		ct.Close()
		return nil, err
	}
	cd, sd := stamped(p.Client, "wire0", ct), stamped(p.Server, "wire0", st)
	if p.Pipe, err = netem.NewPipe(cfg, cd, sd); err != nil {
		cd.Close()
		sd.Close()
		return nil, err
	}
	return p, nil
}

// stampedTUN is a TUN device whose packets the wire admits when the
// kernel sent them (netem.SendStamper).
type stampedTUN struct {
	*os.File
	*Stamps
}

func (t stampedTUN) Close() error { return errors.Join(t.Stamps.Close(), t.File.Close()) }

// stamped gives dev its kernel's send times where a packet socket can be
// had; without one the wire admits its packets as it reads them.
func stamped(ns *NS, name string, dev *os.File) io.ReadWriteCloser {
	s, err := ns.SendStamps(name)
	if err != nil {
		return dev
	}
	return stampedTUN{dev, s}
}

// Dial connects from the client namespace to addr.
func (p *Pair) Dial(network, addr string) (c net.Conn, err error) {
	err = p.Client.Do(func() error {
		c, err = net.Dial(network, addr)
		return err
	})
	return c, err
}

// Close stops the wire and drops both namespaces.
func (p *Pair) Close() error {
	var errs []error
	if p.Pipe != nil {
		errs = append(errs, p.Pipe.Close())
	}
	for _, ns := range []*NS{p.Client, p.Server} {
		if ns != nil {
			errs = append(errs, ns.Close())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("netns: %w", err)
	}
	return nil
}
