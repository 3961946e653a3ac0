package lab

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
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
	conns    []*ConnRecord
	stopping bool
	// requests counts the requests recorded; past maxRecorded, requests
	// are served but not kept (a foreground lab left running for days).
	requests, dropped int
}

// maxRecorded bounds the requests a record keeps (about 100 MB at most).
const maxRecorded = 200_000

// Dropped is the number of requests served but not recorded (past the bound).
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// ConnRecord is one accepted connection.
type ConnRecord struct {
	ID  int
	API string
	// Accepted is when the server's stack handed the connection over (the
	// client's handshake ACK arrived); Hello when the TLS ClientHello was
	// read; Handshake when the client's next flight (its Finished) arrived.
	Accepted, Hello, Handshake time.Time
	// TLSVersion ("1.3", "1.2"; "" for plain HTTP) and ALPN ("h2", "http/1.1", "").
	TLSVersion, ALPN string
	// Closed is when the server saw the connection end; ClosedBy says who
	// ended it: "client", "idle-timeout", "fault", "lab-stopped", "server",
	// or "open" while it lasts.
	Closed   time.Time
	ClosedBy string
	// BytesIn and BytesOut are the bytes on the wire (TLS records included).
	BytesIn, BytesOut int64
	Requests          []*RequestRecord

	clientEOF, serverClosed, hijacked bool
	idleSince                         time.Time
	state                             http.ConnState
}

// RequestRecord is one request as the server saw it.
type RequestRecord struct {
	Method, Path, Query, Proto string
	// Header holds the request's notable headers (checksums, Expect,
	// content type and length, copy source, upload markers).
	Header http.Header
	// ContentLength as the client declared it (-1 unknown).
	ContentLength int64
	// Arrived is when its headers were read; BodyDone when its body was
	// read to the end (zero when the handler did not read it); FirstByte
	// when the response's header was written; Done when the handler ended.
	Arrived, BodyDone, FirstByte, Done time.Time
	BytesIn, BytesOut                  int64
	Status                             int
	// Expect is true when it was sent with Expect: 100-continue.
	Expect bool
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

// newRecorder keeps records; idle is the servers' keep-alive timeout, to
// tell an idle timeout from other closes.
func newRecorder(idle time.Duration) *Recorder { return &Recorder{idle: idle} }

// Snapshot is a copy of the record so far, connections in accept order.
func (r *Recorder) Snapshot() []ConnRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ConnRecord, len(r.conns))
	for i, c := range r.conns {
		cc := *c
		cc.Requests = make([]*RequestRecord, len(c.Requests))
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
		for _, c := range r.conns {
			if c.Closed.IsZero() {
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

func (r *Recorder) stop() {
	r.mu.Lock()
	r.stopping = true
	r.mu.Unlock()
}

// listener wraps ln (below TLS) so each accepted connection is recorded.
func (r *Recorder) listener(api string, ln net.Listener) net.Listener {
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
	rec := &ConnRecord{ID: len(l.r.conns) + 1, API: l.api, Accepted: time.Now()}
	l.r.conns = append(l.r.conns, rec)
	l.r.mu.Unlock()
	return &recordConn{Conn: c, r: l.r, rec: rec}, nil
}

// recordConn counts a connection's bytes and notices who ends it.
type recordConn struct {
	net.Conn
	r   *Recorder
	rec *ConnRecord
}

func (c *recordConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.r.mu.Lock()
	c.rec.BytesIn += int64(n)
	if n > 0 && !c.rec.Hello.IsZero() && c.rec.Handshake.IsZero() {
		// The client's second flight (its Finished; with TLS 1.2 its key
		// exchange): one round trip after the server's answer to the hello.
		c.rec.Handshake = time.Now()
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
	c.rec.BytesOut += int64(n)
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

// tlsConfig is base with hooks that time each connection's handshake.
func (r *Recorder) tlsConfig(base *tls.Config) *tls.Config {
	cfg := base.Clone()
	cfg.GetConfigForClient = func(hi *tls.ClientHelloInfo) (*tls.Config, error) {
		rc, ok := hi.Conn.(*recordConn)
		if !ok {
			return nil, nil
		}
		r.mu.Lock()
		rc.rec.Hello = time.Now()
		r.mu.Unlock()
		c := base.Clone()
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			r.mu.Lock()
			rc.rec.TLSVersion = tlsVersionName(cs.Version)
			rc.rec.ALPN = cs.NegotiatedProtocol
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

// connContext puts the connection's record in every request's context.
func (r *Recorder) connContext(ctx context.Context, c net.Conn) context.Context {
	if rc := recordOf(c); rc != nil {
		return context.WithValue(ctx, connKey{}, rc.rec)
	}
	return ctx
}

// connState follows a connection's states: idle since when, hijacked by a
// fault, and at its close, who closed it.
func (r *Recorder) connState(c net.Conn, s http.ConnState) {
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
		rec.Closed, rec.ClosedBy = now, "fault"
	case http.StateClosed:
		if rec.hijacked {
			break
		}
		rec.Closed = now
		switch {
		case r.stopping:
			rec.ClosedBy = "lab-stopped"
		case rec.clientEOF:
			rec.ClosedBy = "client"
		case rec.state == http.StateIdle && r.idle > 0 && now.Sub(rec.idleSince) >= r.idle-r.idle/20:
			rec.ClosedBy = "idle-timeout"
		case rec.state == http.StateIdle:
			// Idle, short of the timeout: the server had no reason to
			// close it; an HTTP/2 client says goodbye with GOAWAY and the
			// server closes.
			rec.ClosedBy = "client"
		default:
			rec.ClosedBy = "server"
		}
	}
	rec.state = s
}

// wrap records every request next serves.
func (r *Recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec, _ := req.Context().Value(connKey{}).(*ConnRecord)
		if rec == nil {
			next.ServeHTTP(w, req)
			return
		}
		q := &RequestRecord{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Proto: req.Proto,
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
		rec.Requests = append(rec.Requests, q)
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
	q *RequestRecord
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
	q *RequestRecord
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

// recordAzure puts a recording reverse proxy in front of Azurite at
// upstream: on the server stack behind a local endpoint at port when the
// link emulates, else on 127.0.0.1:port. It returns the public address and
// sets ep's teardown (the proxy, then stopChild).
func (l *Lab) recordAzure(ctx context.Context, ep *endpoint, port int, upstream string, stopChild func()) (string, error) {
	pub, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		stopChild()
		return "", fmt.Errorf("lab azure: %w", portHint(err))
	}
	pubPort := pub.Addr().(*net.TCPAddr).Port
	ln := pub
	var kln net.Listener // the netns path's
	if l.kn != nil {
		if kln, err = l.kn.listen(pubPort); err != nil {
			pub.Close()
			stopChild()
			return "", fmt.Errorf("lab azure: %w", err)
		}
		ep.prog = l.scheme() + "://" + net.JoinHostPort(serverAddr.String(), strconv.Itoa(pubPort)) + "/" + azuriteAccount
	}
	if l.net != nil {
		wire, err := l.net.Listen(pubPort)
		if err != nil {
			pub.Close()
			if kln != nil {
				kln.Close()
			}
			stopChild()
			return "", fmt.Errorf("lab azure: %w", err)
		}
		ln = wire
		ep.fwd = l.forward(pub, pubPort)
		l.wirePorts[pubPort] = true
		ep.direct = l.scheme() + "://" + upstream + "/" + azuriteAccount
	}
	target := &url.URL{Scheme: l.scheme(), Host: upstream}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = discardLog
	tr := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second}
	if l.ca != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: l.ca.pool, MinVersion: tls.VersionTLS12}
	}
	proxy.Transport = tr
	b := &behaviour{api: "azure", serviceTime: l.cfg.ServiceTime, faults: l.cfg.Faults, counts: &l.Counts, stop: l.stop}
	srv := &http.Server{Handler: l.rec.wrap(b.wrap(proxy)), ReadHeaderTimeout: time.Minute, IdleTimeout: l.cfg.IdleTimeout,
		ErrorLog: discardLog, ConnState: l.rec.connState, ConnContext: l.rec.connContext}
	lns := []net.Listener{ln}
	if kln != nil {
		lns = append(lns, kln)
	}
	if l.ca != nil {
		srv.TLSConfig = l.ca.serverConfig(l.cfg.TLSVersion)
	}
	done := make(chan error, len(lns))
	for _, ln := range lns {
		ln = l.rec.listener("azure", ln)
		if l.ca != nil {
			ln = tls.NewListener(ln, l.rec.tlsConfig(srv.TLSConfig))
		}
		go func() { done <- srv.Serve(ln) }()
	}
	ep.shutdown = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		cancel()
		for range lns {
			<-done
		}
		tr.CloseIdleConnections()
		stopChild()
	}
	return pub.Addr().String(), nil
}
