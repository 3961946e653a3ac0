package nettrace

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync/atomic"
	"time"
)

// connTiming is what a dial learned about a new connection. It is written
// once by the dialer before the connection is handed to the transport, and
// read by the exchange that gets the connection first.
type connTiming struct {
	dnsStart, dnsDone   time.Time
	connStart, connDone time.Time
	tlsStart, tlsDone   time.Time
	tlsVersion          uint16
}

// tracedConn carries the dial timing along with the connection so that the
// exchange that actually uses a new connection (not the one that happened to
// trigger its dial) gets its dns/connect/tls phases.
type tracedConn struct {
	net.Conn
	timing connTiming
	taken  atomic.Bool
	// lastWrite is when the last Write to the socket returned, and
	// lastWriteStart when it was called, as offsets from monoBase: the
	// request's real end of sending when the WroteRequest hook runs late
	// (see exchange.gotResponse).
	lastWrite, lastWriteStart atomic.Int64
	// remote is RemoteAddr().String(), formatted once per connection
	// rather than once per request on it.
	remote string
}

// monoBase anchors lastWrite offsets so that they keep the monotonic clock.
var monoBase = time.Now()

// Write records when the bytes were handed to the kernel.
func (c *tracedConn) Write(p []byte) (int, error) {
	c.lastWriteStart.Store(int64(time.Since(monoBase)))
	n, err := c.Conn.Write(p)
	c.lastWrite.Store(int64(time.Since(monoBase)))
	return n, err
}

// lastWriteTimes are when the last Write was called and when it
// returned, or zero before any.
func (c *tracedConn) lastWriteTimes() (start, end time.Time) {
	at := func(d int64) time.Time {
		if d == 0 {
			return time.Time{}
		}
		return monoBase.Add(time.Duration(d))
	}
	return at(c.lastWriteStart.Load()), at(c.lastWrite.Load())
}

// take returns the dial timing the first time it is called, so a new
// connection's set-up is counted once.
func (c *tracedConn) take() (connTiming, bool) {
	if c.taken.Swap(true) {
		return connTiming{}, false
	}
	return c.timing, true
}

// dialer opens TCP (and TLS) connections, timing DNS, connect and TLS itself.
type dialer struct {
	timeout      time.Duration
	resolver     *net.Resolver
	dialFunc     func(ctx context.Context, network, addr string) (net.Conn, error)
	tlsConfig    *tls.Config
	conns, tlsHS atomic.Int64
}

func (d *dialer) dial(ctx context.Context, network, addr string) (*tracedConn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var t connTiming
	ips := []string{host}
	if net.ParseIP(host) == nil {
		t.dnsStart = time.Now()
		addrs, err := d.resolver.LookupHost(ctx, host)
		t.dnsDone = time.Now()
		if err != nil {
			return nil, err
		}
		ips = addrs
	}
	dial := d.dialFunc
	if dial == nil {
		nd := net.Dialer{Timeout: d.timeout, KeepAlive: 30 * time.Second}
		dial = nd.DialContext
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	t.connStart = time.Now()
	var conn net.Conn
	for _, ip := range ips {
		conn, err = dial(ctx, network, net.JoinHostPort(ip, port))
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	t.connDone = time.Now()
	d.conns.Add(1)
	tc := &tracedConn{Conn: conn, timing: t}
	if a := conn.RemoteAddr(); a != nil {
		tc.remote = a.String()
	}
	return tc, nil
}

func (d *dialer) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (d *dialer) dialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr)
	cfg := d.tlsConfig.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	tc := tls.Client(c, cfg)
	c.timing.tlsStart = time.Now()
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("tls handshake with %s: %w", addr, err)
	}
	c.timing.tlsDone = time.Now()
	c.timing.tlsVersion = tc.ConnectionState().Version
	d.tlsHS.Add(1)
	return tc, nil
}
