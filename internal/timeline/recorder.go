package timeline

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Recorder keeps, from the servers' side, every connection a lab endpoint
// accepts and every request it serves: the raw record `objbench explain`
// and `lab --record` explain. Times are the server's; a client sees each
// event half a round trip later (or earlier, for what it sent).
type Recorder struct {
	mu       sync.Mutex
	idle     time.Duration
	conns    []*tracked
	stopping bool
	// requests counts the requests recorded; past maxRecorded, requests
	// are served but not kept (a foreground lab left running for days).
	requests, dropped int
}

// tracked is a connection being recorded: its record, and what the
// recorder needs to tell who closed it.
type tracked struct {
	c                                 *Conn
	clientEOF, serverClosed, hijacked bool
	idleSince                         time.Time
	state                             http.ConnState
}

// maxRecorded bounds the requests a record keeps (about 100 MB at most).
const maxRecorded = 200_000

// Dropped is the number of requests served but not recorded (past the bound).
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// notableHeaders are the request headers a record keeps (canonical names,
// or prefixes ending in '-').
var notableHeaders = []string{"Expect", "Content-Type", "Content-Md5", "Content-Encoding", "Transfer-Encoding",
	"X-Amz-Checksum-", "X-Amz-Sdk-Checksum-Algorithm", "X-Amz-Content-Sha256", "X-Amz-Decoded-Content-Length",
	"X-Amz-Trailer", "X-Amz-Copy-Source", "X-Goog-Upload-", "X-Goog-Hash", "X-Upload-Content-Length",
	"X-Ms-Blob-Type", "X-Ms-Copy-Source", "X-Ms-Content-Crc64", "X-Ms-Blob-Content-Md5", "Content-Range", "Range", "User-Agent"}

func notable(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		for _, n := range notableHeaders {
			if k == n || strings.HasSuffix(n, "-") && strings.HasPrefix(k, n) {
				out[k] = append([]string(nil), v...)
				break
			}
		}
	}
	return out
}

// NewRecorder keeps records; idle is the servers' keep-alive timeout, to
// tell an idle timeout from other closes.
func NewRecorder(idle time.Duration) *Recorder { return &Recorder{idle: idle} }

// Snapshot is a copy of the record so far, connections in accept order.
func (r *Recorder) Snapshot() []Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Conn, len(r.conns))
	for i, t := range r.conns {
		c := t.c
		cc := *c
		cc.Requests = make([]*Request, len(c.Requests))
		for j, q := range c.Requests {
			qq := *q
			qq.Header = q.Header.Clone()
			cc.Requests[j] = &qq
		}
		if cc.ClosedBy == "" {
			cc.ClosedBy = "open"
		}
		out[i] = cc
	}
	return out
}

// WaitClosed waits until every recorded connection has closed, or for at
// most d: a program's connections close as it exits, and the news crosses
// the wire half a round trip later.
func (r *Recorder) WaitClosed(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		open := 0
		for _, t := range r.conns {
			if t.c.Closed.IsZero() {
				open++
			}
		}
		r.mu.Unlock()
		if open == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Reset forgets everything recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.conns, r.requests, r.dropped = nil, 0, 0
	r.mu.Unlock()
}

// Stop marks every connection closed from now on as closed by the lab stopping.
func (r *Recorder) Stop() {
	r.mu.Lock()
	r.stopping = true
	r.mu.Unlock()
}

// Listener wraps ln (below TLS) so each accepted connection is recorded.
func (r *Recorder) Listener(api string, ln net.Listener) net.Listener {
	return &recordListener{Listener: ln, r: r, api: api}
}

type recordListener struct {
	net.Listener
	r   *Recorder
	api string
}

func (l *recordListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.r.mu.Lock()
	rec := &tracked{c: &Conn{ID: len(l.r.conns) + 1, API: l.api, Accepted: time.Now()}}
	l.r.conns = append(l.r.conns, rec)
	l.r.mu.Unlock()
	return &recordConn{Conn: c, r: l.r, rec: rec}, nil
}

// recordConn counts a connection's bytes and notices who ends it.
type recordConn struct {
	net.Conn
	r   *Recorder
	rec *tracked
}

func (c *recordConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.r.mu.Lock()
	c.rec.c.BytesIn += int64(n)
	if n > 0 && !c.rec.c.Hello.IsZero() && c.rec.c.Handshake.IsZero() {
		// The client's second flight (its Finished; with TLS 1.2 its key
		// exchange): one round trip after the server's answer to the hello.
		c.rec.c.Handshake = time.Now()
	}
	var ne net.Error
	if err != nil && !c.rec.serverClosed && !errors.Is(err, net.ErrClosed) && !(errors.As(err, &ne) && ne.Timeout()) {
		c.rec.clientEOF = true // end of stream or a reset: the client's doing (a deadline is the server's)
	}
	c.r.mu.Unlock()
	return n, err
}

func (c *recordConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.r.mu.Lock()
	c.rec.c.BytesOut += int64(n)
	c.r.mu.Unlock()
	return n, err
}

func (c *recordConn) Close() error {
	c.r.mu.Lock()
	c.rec.serverClosed = true
	c.r.mu.Unlock()
	return c.Conn.Close()
}

// CloseWrite and Reset keep the wrapped connection's half-close and reset.
func (c *recordConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

// TLSConfig is base with hooks that time each connection's handshake.
func (r *Recorder) TLSConfig(base *tls.Config) *tls.Config {
	cfg := base.Clone()
	cfg.GetConfigForClient = func(hi *tls.ClientHelloInfo) (*tls.Config, error) {
		rc, ok := hi.Conn.(*recordConn)
		if !ok {
			return nil, nil
		}
		r.mu.Lock()
		rc.rec.c.Hello = time.Now()
		r.mu.Unlock()
		c := base.Clone()
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			r.mu.Lock()
			rc.rec.c.TLSVersion = tlsVersionName(cs.Version)
			rc.rec.c.ALPN = cs.NegotiatedProtocol
			r.mu.Unlock()
			return nil
		}
		return c, nil
	}
	return cfg
}

func tlsVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS13:
		return "1.3"
	case tls.VersionTLS12:
		return "1.2"
	case tls.VersionTLS11:
		return "1.1"
	}
	return "1.0"
}

func recordOf(c net.Conn) *recordConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	rc, _ := c.(*recordConn)
	return rc
}

type connKey struct{}

// ConnContext puts the connection's record in every request's context.
func (r *Recorder) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if rc := recordOf(c); rc != nil {
		return context.WithValue(ctx, connKey{}, rc.rec)
	}
	return ctx
}

// ConnState follows a connection's states: idle since when, hijacked by a
// fault, and at its close, who closed it.
func (r *Recorder) ConnState(c net.Conn, s http.ConnState) {
	rc := recordOf(c)
	if rc == nil {
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := rc.rec
	switch s {
	case http.StateIdle:
		rec.idleSince = now
	case http.StateHijacked:
		rec.hijacked = true
		rec.c.Closed, rec.c.ClosedBy = now, "fault"
	case http.StateClosed:
		if rec.hijacked {
			break
		}
		rec.c.Closed = now
		switch {
		case r.stopping:
			rec.c.ClosedBy = "lab-stopped"
		case rec.clientEOF:
			rec.c.ClosedBy = "client"
		case rec.state == http.StateIdle && r.idle > 0 && now.Sub(rec.idleSince) >= r.idle-r.idle/20:
			rec.c.ClosedBy = "idle-timeout"
		case rec.state == http.StateIdle:
			// Idle, short of the timeout: the server had no reason to
			// close it; an HTTP/2 client says goodbye with GOAWAY and the
			// server closes.
			rec.c.ClosedBy = "client"
		default:
			rec.c.ClosedBy = "server"
		}
	}
	rec.state = s
}

// Wrap records every request next serves.
func (r *Recorder) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec, _ := req.Context().Value(connKey{}).(*tracked)
		if rec == nil {
			next.ServeHTTP(w, req)
			return
		}
		q := &Request{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Proto: req.Proto,
			Header: notable(req.Header), ContentLength: req.ContentLength, Arrived: time.Now(),
			Expect: strings.EqualFold(req.Header.Get("Expect"), "100-continue")}
		r.mu.Lock()
		if r.requests >= maxRecorded {
			r.dropped++
			r.mu.Unlock()
			next.ServeHTTP(w, req)
			return
		}
		r.requests++
		rec.c.Requests = append(rec.c.Requests, q)
		r.mu.Unlock()
		// A shallow copy carries the counting body: the server keeps
		// checking the original's (an unread Expect: 100-continue body
		// closes the connection rather than being read after the reply).
		counted := req.WithContext(req.Context())
		if req.Body != nil && req.Body != http.NoBody {
			counted.Body = &recordBody{ReadCloser: req.Body, r: r, q: q}
		}
		rw := &recordWriter{ResponseWriter: w, r: r, q: q}
		defer func() {
			r.mu.Lock()
			q.Done = time.Now()
			if q.Status == 0 && !rec.hijacked {
				q.Status = http.StatusOK
			}
			r.mu.Unlock()
		}()
		next.ServeHTTP(rw, counted)
	})
}

type recordBody struct {
	io.ReadCloser
	r *Recorder
	q *Request
}

func (b *recordBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.r.mu.Lock()
	b.q.BytesIn += int64(n)
	if err == io.EOF && b.q.BodyDone.IsZero() {
		b.q.BodyDone = time.Now()
	}
	b.r.mu.Unlock()
	return n, err
}

// recordWriter notes the status, the first byte and the bytes of a
// response; it keeps the Hijacker and Flusher the lab's faults use.
type recordWriter struct {
	http.ResponseWriter
	r *Recorder
	q *Request
}

func (w *recordWriter) header(code int) {
	w.r.mu.Lock()
	if w.q.FirstByte.IsZero() {
		w.q.FirstByte, w.q.Status = time.Now(), code
	}
	w.r.mu.Unlock()
}

func (w *recordWriter) WriteHeader(code int) {
	if code >= 200 {
		w.header(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordWriter) Write(p []byte) (int, error) {
	w.header(http.StatusOK)
	n, err := w.ResponseWriter.Write(p)
	w.r.mu.Lock()
	w.q.BytesOut += int64(n)
	w.r.mu.Unlock()
	return n, err
}

func (w *recordWriter) ReadFrom(src io.Reader) (int64, error) {
	w.header(http.StatusOK)
	n, err := io.Copy(writerOnly{w.ResponseWriter}, src)
	w.r.mu.Lock()
	w.q.BytesOut += n
	w.r.mu.Unlock()
	return n, err
}

type writerOnly struct{ io.Writer }

func (w *recordWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	return hj.Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *recordWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// NetConn is the connection below the record (a fault resets it).
func (c *recordConn) NetConn() net.Conn { return c.Conn }

// Notable is the part of a request's header a record keeps (checksums,
// Expect, content type and length, copy source, upload markers): the
// recorder's choice, for records read elsewhere (off the wire).
func Notable(h http.Header) http.Header { return notable(h) }
