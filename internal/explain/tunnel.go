package explain

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/timeline"
	"github.com/objbench/objbench/internal/wire"
)

// tunnel is the fallback where no namespace can be made: a forward proxy
// on loopback, offered through HTTPS_PROXY and HTTP_PROXY, that carries
// each CONNECT tunnel without decrypting it. It sees connections, the TLS
// records' direction, sizes and times, bytes, and what the ServerHello
// says in the clear; from the records it infers HTTP/1.1 requests (a run
// of the client's application data, then the server's). It does not see the program's own TCP (the tunnel ends
// it on loopback), nor a program that ignores HTTPS_PROXY.
type tunnel struct {
	srv   loopServer
	mu    sync.Mutex
	conns []*timeline.Conn
	ctx   context.Context
	stop  context.CancelFunc
}

func startTunnel() (*tunnel, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t := &tunnel{}
	t.ctx, t.stop = context.WithCancel(context.Background())
	t.srv.start(ln, t.serve)
	return t, nil
}

// env points the program at the tunnel; NO_PROXY is cleared (loopback
// goes through it too), unless the user set one.
func (t *tunnel) env() []string {
	u := t.srv.url()
	return []string{"HTTPS_PROXY=" + u, "https_proxy=" + u, "HTTP_PROXY=" + u, "http_proxy=" + u, "ALL_PROXY=" + u, "all_proxy=" + u,
		"NO_PROXY=" + noProxyUser(), "no_proxy=" + noProxyUser()}
}

func noProxyUser() string {
	for _, v := range []string{"NO_PROXY", "no_proxy"} {
		if s := os.Getenv(v); s != "" {
			return s
		}
	}
	return ""
}

func (t *tunnel) newConn(server string, at time.Time) *timeline.Conn {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := &timeline.Conn{ID: len(t.conns) + 1, Server: server, Connect: at, ClosedBy: "open"}
	t.conns = append(t.conns, c)
	return c
}

func (t *tunnel) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	at := time.Now()
	if req.Method != http.MethodConnect {
		t.plain(c, br, req, at)
		return
	}
	up, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(t.ctx, "tcp", req.Host)
	if err != nil {
		_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer up.Close()
	t.srv.track(up, true)
	defer t.srv.track(up, false)
	conn := t.newConn(req.Host, at)
	t.mu.Lock()
	conn.Accepted = time.Now()
	conn.Read = "inferred"
	t.mu.Unlock()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	rs := &records{t: t, c: conn}
	done := make(chan struct{})
	go func() {
		rs.copy(up, br, true)
		if cw, ok := up.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		close(done)
	}()
	rs.copy(c, up, false)
	c.Close()
	<-done
	t.mu.Lock()
	conn.Closed = time.Now()
	if conn.ClosedBy == "open" {
		conn.ClosedBy = "server"
	}
	t.mu.Unlock()
}

// plain passes on plain HTTP requests with absolute URLs, each read exactly.
func (t *tunnel) plain(c net.Conn, br *bufio.Reader, req *http.Request, at time.Time) {
	conn := t.newConn(req.Host, at)
	t.mu.Lock()
	conn.Accepted, conn.Read = at, "plain"
	t.mu.Unlock()
	for {
		q := &timeline.Request{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Proto: req.Proto,
			Header: http.Header{"User-Agent": req.Header.Values("User-Agent")}, ContentLength: req.ContentLength,
			Sent: at, Arrived: at, Host: req.Host, Expect: strings.EqualFold(req.Header.Get("Expect"), "100-continue")}
		req.RequestURI = ""
		resp, err := http.DefaultTransport.RoundTrip(req)
		t.mu.Lock()
		conn.Requests = append(conn.Requests, q)
		q.FirstByte = time.Now()
		t.mu.Unlock()
		if err != nil {
			_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			break
		}
		err = resp.Write(c)
		resp.Body.Close()
		t.mu.Lock()
		q.Status, q.Done, q.BytesOut = resp.StatusCode, time.Now(), max(resp.ContentLength, 0)
		q.BytesIn = max(req.ContentLength, 0)
		t.mu.Unlock()
		if err != nil || req.Close || resp.Close {
			break
		}
		if req, err = http.ReadRequest(br); err != nil {
			break
		}
		at = time.Now()
	}
	t.mu.Lock()
	conn.Closed, conn.ClosedBy = time.Now(), "client"
	t.mu.Unlock()
}

// records follows one tunnel's TLS records: the handshake's stamps, the
// ServerHello's facts (version, cipher, and ALPN under TLS 1.2), and
// HTTP/1.1 requests inferred from the direction of application data. A
// TLS 1.3 server's session tickets, arriving between a request's header
// and body records, split it in two: the count is an estimate. An HTTP/2
// connection is read for its facts only, as internal/wire reads one: its
// SETTINGS and their acknowledgements change direction as requests do.
// TLS 1.2's ServerHello names it; under TLS 1.3 the client's SETTINGS
// acknowledgement tells it.
type records struct {
	t *tunnel
	c *timeline.Conn
	// cur is the request being answered (nil between requests).
	cur *timeline.Request
	// lastUp says the last application data was the client's.
	lastUp bool
	// h2 says the connection is HTTP/2: ALPN said so, or the client sent
	// a SETTINGS acknowledgement.
	h2 bool
	// hello says the ServerHello was read (the server's direction only).
	hello bool
}

// copy carries src to dst, reading the TLS record headers as they pass.
func (rs *records) copy(dst io.Writer, src io.Reader, up bool) {
	var hdr [5]byte
	buf := make([]byte, 32<<10)
	for {
		if _, err := io.ReadFull(src, hdr[:]); err != nil {
			rs.end(up, err)
			return
		}
		n := int(binary.BigEndian.Uint16(hdr[3:5]))
		at := time.Now()
		if _, err := dst.Write(hdr[:]); err != nil {
			return
		}
		rs.record(hdr[0], n, up, at)
		// The server's handshake records up to its ServerHello are kept
		// as they pass (never held back: the program's timing is its own).
		var hello []byte
		if !up && hdr[0] == 22 && !rs.hello {
			hello = make([]byte, 0, n)
		}
		for n > 0 {
			k, err := src.Read(buf[:min(n, len(buf))])
			if k > 0 {
				if _, werr := dst.Write(buf[:k]); werr != nil {
					return
				}
				if hello != nil {
					hello = append(hello, buf[:k]...)
				}
				n -= k
			}
			if err != nil {
				rs.end(up, err)
				return
			}
		}
		rs.t.mu.Lock()
		if rs.cur != nil && !up {
			rs.cur.Done = time.Now()
		}
		if hello != nil {
			rs.serverHello(hello)
		}
		rs.t.mu.Unlock()
	}
}

// serverHello notes what a server's handshake record says in the clear,
// once it holds the ServerHello (under t.mu).
func (rs *records) serverHello(body []byte) {
	f, ok := wire.ReadServerHello(body)
	if !ok {
		return // a HelloRetryRequest, or a record after the hello
	}
	rs.hello = true
	c := rs.c
	c.TLSVersion, c.Cipher, c.ALPN = f.Version, f.Cipher, f.ALPN
	if f.ALPN == "h2" {
		rs.h2, rs.cur = true, nil
		c.Read, c.Requests = "connection", nil
	}
}

// record notes one record of type typ and n bytes.
func (rs *records) record(typ byte, n int, up bool, at time.Time) {
	rs.t.mu.Lock()
	defer rs.t.mu.Unlock()
	c := rs.c
	if up {
		c.BytesIn += int64(n + 5)
	} else {
		c.BytesOut += int64(n + 5)
	}
	switch typ {
	case 22: // handshake
		if up && c.Hello.IsZero() {
			c.Hello = at
		} else if up && !c.Hello.IsZero() && c.Handshake.IsZero() {
			c.Handshake = at
		}
		if c.TLSVersion == "" {
			c.TLSVersion = "1.2" // until the ServerHello says (serverHello)
		}
	case 23: // application data
		if !up && c.Handshake.IsZero() {
			if !rs.hello {
				c.TLSVersion = "1.3" // encrypted handshake from the server
			}
			return
		}
		if up && c.Handshake.IsZero() {
			c.Handshake = at
			if c.TLSVersion == "1.3" {
				return // the client's Finished, encrypted
			}
		}
		if up && c.TLSVersion == "1.3" && n-wire.TLS13Overhead == wire.HTTP2SettingsAck && !rs.h2 {
			rs.h2, rs.cur = true, nil
			c.Read, c.Requests = "connection", nil
		}
		if rs.h2 {
			return
		}
		if up {
			if !rs.lastUp || rs.cur == nil {
				rs.cur = &timeline.Request{Sent: at, Arrived: at, Inferred: true, Status: 0}
				c.Requests = append(c.Requests, rs.cur)
			}
			rs.cur.Arrived = at
			rs.cur.BytesIn += int64(n)
			rs.lastUp = true
			return
		}
		if rs.cur != nil {
			if rs.lastUp {
				rs.cur.FirstByte = at
			}
			rs.cur.BytesOut += int64(n)
		}
		rs.lastUp = false
	}
}

func (rs *records) end(up bool, err error) {
	rs.t.mu.Lock()
	defer rs.t.mu.Unlock()
	if up && rs.c.ClosedBy == "open" {
		rs.c.ClosedBy = "client"
	}
	// TLS 1.3 encrypts the close_notify alert as application data: a last
	// record of an alert's size (2 bytes, its type, the 16-byte tag) that
	// nothing answered is the goodbye, not a request.
	if n := len(rs.c.Requests); n > 0 {
		if q := rs.c.Requests[n-1]; q.FirstByte.IsZero() && q.BytesIn <= 19 {
			rs.c.Requests = rs.c.Requests[:n-1]
			rs.cur = nil
		}
	}
}

// result is every tunnel's timeline: a copy.
func (t *tunnel) result() []timeline.Conn {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]timeline.Conn, len(t.conns))
	for i, c := range t.conns {
		cc := *c
		cc.Requests = make([]*timeline.Request, len(c.Requests))
		for j, q := range c.Requests {
			qq := *q
			cc.Requests[j] = &qq
		}
		out[i] = cc
	}
	return out
}

// Close stops the tunnel and every connection it carries, and waits.
func (t *tunnel) Close() {
	t.stop()
	t.srv.close()
}
