package lab

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
)

// forwarder accepts connections on a local endpoint and carries each one
// across the emulated network: it dials the server stack first (the
// handshake crosses the wire) and only then copies bytes, so an outside
// client's first request waits for the handshake as it would on a real path.
type forwarder struct {
	ln     net.Listener
	dial   func(ctx context.Context) (net.Conn, error)
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

func (l *Lab) forward(ln net.Listener, port int) *forwarder {
	return startForwarder(ln, func(ctx context.Context) (net.Conn, error) { return l.net.Dial(ctx, port) })
}

func startForwarder(ln net.Listener, dial func(ctx context.Context) (net.Conn, error)) *forwarder {
	ctx, cancel := context.WithCancel(context.Background())
	f := &forwarder{ln: ln, dial: dial, ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go f.accept()
	return f
}

func (f *forwarder) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.carry(c)
		}()
	}
}

func (f *forwarder) track(c net.Conn, add bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !add {
		delete(f.conns, c)
		return true
	}
	if f.ctx.Err() != nil {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *forwarder) carry(c net.Conn) {
	if !f.track(c, true) {
		c.Close()
		return
	}
	defer f.track(c, false)
	up, err := f.dial(f.ctx)
	if err != nil {
		reset(c)
		return
	}
	if !f.track(up, true) {
		c.Close()
		up.Close()
		return
	}
	defer f.track(up, false)
	splice(c, up)
}

// splice copies both ways until both are done, passing on half-closes, and
// a reset as a reset.
func splice(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		pass(b, a)
		close(done)
	}()
	pass(a, b)
	<-done
	a.Close()
	b.Close()
}

// pass copies src to dst; at src's end it half-closes dst, and on an error
// it resets dst (a reset on one side shows as a reset on the other).
func pass(dst, src net.Conn) {
	_, err := io.Copy(dst, src)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		reset(dst)
		reset(src)
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		dst.Close()
	}
}

// reset drops c with a RST where it can.
func reset(c net.Conn) {
	switch t := c.(type) {
	case *net.TCPConn:
		_ = t.SetLinger(0)
	case interface{ Reset() error }:
		_ = t.Reset()
		return
	}
	_ = c.Close()
}

// Close stops accepting, drops every carried connection and waits.
func (f *forwarder) Close() {
	f.mu.Lock()
	f.cancel()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.ln.Close()
	f.wg.Wait()
}
