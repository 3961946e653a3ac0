package nettrace

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"sync"
	"time"
)

type opKey struct{}

// Op collects the HTTP exchanges of one storage operation.
type Op struct {
	start     time.Time
	mu        sync.Mutex
	exchanges []*exchange
}

// Begin starts timing one operation. Every exchange made through a Transport
// with the returned context (or one derived from it) is attributed to op.
func Begin(ctx context.Context) (context.Context, *Op) {
	op := &Op{start: time.Now()}
	return context.WithValue(ctx, opKey{}, op), op
}

func opFrom(ctx context.Context) *Op {
	op, _ := ctx.Value(opKey{}).(*Op)
	return op
}

func (o *Op) add(ex *exchange) {
	o.mu.Lock()
	o.exchanges = append(o.exchanges, ex)
	o.mu.Unlock()
}

// Finish ends the operation and returns its Sample. Phases of several
// exchanges are summed; the connection facts are the first exchange's, the
// protocol facts the last one's. Error fields are left to the caller, which
// knows the provider's error classes. Hooks that fire after Finish are
// ignored safely.
func (o *Op) Finish() Sample {
	end := time.Now()
	o.mu.Lock()
	exs := o.exchanges
	o.mu.Unlock()
	s := Sample{Start: o.start, End: end, Requests: len(exs)}
	for i, ex := range exs {
		ex.mu.Lock()
		ex.addPhases(&s.Phases, end)
		s.Reconnects += ex.reconnects
		s.SilentRetries += ex.reconnects
		if i == 0 {
			s.Reused, s.WasIdle, s.IdleTime = ex.reused, ex.wasIdle, ex.idleTime
		}
		if ex.status == http.StatusTooManyRequests || ex.status == http.StatusServiceUnavailable {
			s.Throttled++
		}
		s.ExpectSent = s.ExpectSent || ex.expectSent
		s.ExpectWaited = s.ExpectWaited || !ex.wait100.IsZero()
		if i == len(exs)-1 {
			s.FirstByte = ex.firstByte
			s.Status = ex.status
			s.Proto = ex.proto
			s.TLSVersion = TLSVersionName(ex.tlsVersion)
			s.RemoteAddr = ex.remote
			s.Bytes = ex.bytes
		} else if ex.err != nil || ex.status == http.StatusTooManyRequests || ex.status >= 500 {
			s.Retries++
		}
		ex.mu.Unlock()
	}
	return s
}

// exchange is one HTTP request/response. Trace hooks may fire concurrently
// and after the response (for example WroteRequest when the server answers
// early), so every field is guarded by mu.
type exchange struct {
	mu                  sync.Mutex
	start               time.Time
	gotConn             time.Time
	wait100, got100     time.Time
	wroteRequest        time.Time
	firstByte, bodyDone time.Time
	// connWriteStart and connWrote are when the socket's last write
	// before the response was called and returned (HTTP/1 only, where one
	// request owns the connection).
	connWriteStart, connWrote time.Time
	tconn                     *tracedConn
	conn                      connTiming
	newConn                   bool
	reused, wasIdle           bool
	idleTime                  time.Duration
	status                    int
	proto, remote             string
	tlsVersion                uint16
	bytes                     int64
	err                       error
	reconnects                int
	// expectSent: the request went out with "Expect: 100-continue";
	// whether the client then held the body is wait100 being set.
	expectSent bool
	// interim is when the last 1xx response (a 100 Continue the client
	// waited for or not) was read.
	interim time.Time
	// trace and body are the exchange's hooks and its response body's
	// wrapper, in the same allocation as the exchange.
	trace httptrace.ClientTrace
	body  tracedBody
}

// clientTrace returns the hooks of one exchange. A request without a body
// gets no 100-continue hooks: Go's transport waits for "100 Continue" only
// before sending a body, and an unasked-for 100 is an interim response that
// Got1xxResponse marks as it marks any other. Each hook is an allocation,
// on every request; the ClientTrace itself is a field of the exchange.
func (ex *exchange) clientTrace(body bool) *httptrace.ClientTrace {
	t := &ex.trace
	*t = httptrace.ClientTrace{
		GotConn: ex.onGotConn,
		Got1xxResponse: func(int, textproto.MIMEHeader) error {
			ex.markInterim()
			return nil
		},
		WroteRequest:         func(httptrace.WroteRequestInfo) { ex.mark(&ex.wroteRequest) },
		GotFirstResponseByte: func() { ex.mark(&ex.firstByte) },
	}
	if body {
		t.Wait100Continue = func() { ex.mark(&ex.wait100) }
		t.Got100Continue = func() {
			ex.mark(&ex.got100)
			ex.markInterim()
		}
	}
	return t
}

// mark records now into *t once.
func (ex *exchange) mark(t *time.Time) {
	now := time.Now()
	ex.mu.Lock()
	if t.IsZero() {
		*t = now
	}
	ex.mu.Unlock()
}

// markInterim records that a 1xx response was read: the first response
// byte seen so far was not the final response's.
func (ex *exchange) markInterim() {
	now := time.Now()
	ex.mu.Lock()
	ex.interim = now
	ex.mu.Unlock()
}

func (ex *exchange) onGotConn(info httptrace.GotConnInfo) {
	now := time.Now()
	c := info.Conn
	var tlsVersion uint16
	if tc, ok := c.(*tls.Conn); ok {
		tlsVersion = tc.ConnectionState().Version
		c = tc.NetConn()
	}
	var timing connTiming
	var fresh bool
	trc, _ := c.(*tracedConn)
	if trc != nil && !info.Reused {
		timing, fresh = trc.take()
	}
	remote := ""
	if trc != nil {
		remote = trc.remote
	} else if c != nil && c.RemoteAddr() != nil {
		remote = c.RemoteAddr().String()
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if !ex.gotConn.IsZero() {
		// The transport found the first connection dead (closed by the
		// server while idle) and retried on another: a reconnection.
		ex.reconnects++
	}
	ex.gotConn = now
	ex.tconn = trc
	ex.reused, ex.wasIdle, ex.idleTime = info.Reused, info.WasIdle, info.IdleTime
	ex.tlsVersion = tlsVersion
	ex.remote = remote
	if fresh {
		ex.conn, ex.newConn = timing, true
	}
}

func (ex *exchange) gotResponse(resp *http.Response) {
	now := time.Now()
	ex.mu.Lock()
	ex.status = resp.StatusCode
	ex.proto = protoName(resp)
	// GotFirstResponseByte fires on the first byte of any response,
	// including an interim "100 Continue" (waited for or not): the final
	// response's first byte is then the time its headers arrived.
	if ex.firstByte.IsZero() || (!ex.interim.IsZero() && !ex.firstByte.After(ex.interim)) {
		ex.firstByte = now
	}
	// On HTTP/1 nothing else writes to the connection until this response
	// is read, so its last write is this request's end of sending. The
	// WroteRequest hook runs on the transport's writer goroutine and can be
	// scheduled after the answer arrived on a busy client.
	if resp.ProtoMajor == 1 && ex.tconn != nil {
		ex.connWriteStart, ex.connWrote = ex.tconn.lastWriteTimes()
	}
	ex.mu.Unlock()
}

func (ex *exchange) bodyRead(n int64, err error) {
	now := time.Now()
	ex.mu.Lock()
	if ex.bodyDone.IsZero() {
		ex.bodyDone = now
		ex.bytes = n
		if err != nil && ex.err == nil {
			ex.err = err
		}
	}
	ex.mu.Unlock()
}

func (ex *exchange) finish(err error) {
	now := time.Now()
	ex.mu.Lock()
	ex.err = err
	if ex.bodyDone.IsZero() {
		ex.bodyDone = now
	}
	ex.mu.Unlock()
}

// addPhases adds this exchange's phase durations to ps. Caller holds ex.mu.
// end stands in for marks that never came (a body never read to its end).
func (ex *exchange) addPhases(ps *[NumPhases]time.Duration, end time.Time) {
	if ex.newConn {
		ps[DNS] += span(ex.conn.dnsStart, ex.conn.dnsDone)
		ps[Connect] += span(ex.conn.connStart, ex.conn.connDone)
		ps[TLS] += span(ex.conn.tlsStart, ex.conn.tlsDone)
	}
	w100 := span(ex.wait100, ex.got100)
	ps[Wait100] += w100
	wrote := ex.wroteRequest
	if wrote.IsZero() || wrote.After(ex.firstByte) {
		// The hook ran late. The socket's last write ended before the
		// answer; or, when the answer came while that write was still
		// returning (an in-process network stack delivers the bytes
		// inside Write), the request was on the wire when it began.
		within := func(t time.Time) bool {
			return !t.IsZero() && !t.Before(ex.gotConn) && !t.After(ex.firstByte)
		}
		switch {
		case within(ex.connWrote):
			wrote = ex.connWrote
		case within(ex.connWriteStart):
			wrote = ex.connWriteStart
		}
	}
	if send := span(ex.gotConn, wrote) - w100; send > 0 {
		ps[Send] += send
	}
	ps[Wait] += span(wrote, ex.firstByte)
	done := ex.bodyDone
	if done.IsZero() {
		done = end
	}
	ps[Recv] += span(ex.firstByte, done)
}

// span is b-a when both are set and b is not before a.
func span(a, b time.Time) time.Duration {
	if a.IsZero() || b.IsZero() || b.Before(a) {
		return 0
	}
	return b.Sub(a)
}

func protoName(resp *http.Response) string {
	switch resp.ProtoMajor {
	case 2:
		return "h2"
	case 3:
		return "h3"
	}
	return "http/1.1"
}
