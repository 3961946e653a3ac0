package nettrace

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"
)

// Strategy is how the client uses connections.
type Strategy string

// Connection strategies; they are transport settings, not workload code paths.
const (
	// Pooled keeps connections alive and reuses them (the default).
	Pooled Strategy = "pooled"
	// Fresh opens a new connection for every request.
	Fresh Strategy = "fresh"
	// H2 speaks HTTP/2: over TLS by ALPN, or h2c on plain HTTP.
	H2 Strategy = "h2"
)

// ParseStrategy validates a --conn value.
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case Pooled, Fresh, H2:
		return Strategy(s), nil
	}
	return "", fmt.Errorf("unknown connection strategy %q: use pooled, fresh or h2", s)
}

// Config sets up a Transport.
type Config struct {
	Strategy Strategy
	// ExpectContinue adds "Expect: 100-continue" to every request with a
	// body and makes the transport hold the body until "100 Continue" (or
	// Timeout): one round trip, the wait100 phase, whichever SDK built the
	// request. Without it, a header an SDK adds itself is sent as the SDK
	// sends it and honoured as Go's transport honours it for that request
	// (aws-sdk-go-v2's requests lack a protocol version, so HTTP/1.1 sends
	// the body at once), with the 1 s ExpectContinueTimeout every SDK's own
	// default transport has: what a plain Go program with the SDK gets.
	ExpectContinue bool
	// TLS is the client TLS configuration (root CAs, versions); nil means
	// the system roots.
	TLS *tls.Config
	// Timeout bounds dialing, the TLS handshake and waiting for response
	// headers. Zero means 30 s.
	Timeout time.Duration
	// Dial, when set, opens TCP connections instead of the system's dialer
	// (the lab dials into its emulated network); connect is the time it takes.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Resolver for host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

// Transport is an instrumented http.RoundTripper.
type Transport struct {
	cfg    Config
	dialer *dialer
	base   *http.Transport
}

// NewTransport returns a Transport for cfg.
func NewTransport(cfg Config) *Transport {
	if cfg.Strategy == "" {
		cfg.Strategy = Pooled
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLS != nil {
		tlsCfg = cfg.TLS.Clone()
	}
	d := &dialer{
		timeout:   cfg.Timeout,
		resolver:  cfg.Resolver,
		dialFunc:  cfg.Dial,
		tlsConfig: tlsCfg,
	}
	if d.resolver == nil {
		d.resolver = net.DefaultResolver
	}
	base := &http.Transport{
		Proxy:                 nil, // a proxy would hide the phases being measured
		DialContext:           d.dialContext,
		DialTLSContext:        d.dialTLSContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		DisableCompression:    true,
	}
	if cfg.ExpectContinue {
		base.ExpectContinueTimeout = cfg.Timeout
	} else {
		base.ExpectContinueTimeout = sdkExpectContinueTimeout
	}
	switch cfg.Strategy {
	case Fresh:
		base.DisableKeepAlives = true
		tlsCfg.NextProtos = []string{"http/1.1"}
	case H2:
		var p http.Protocols
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true)
		base.Protocols = &p
		base.ForceAttemptHTTP2 = true
		tlsCfg.NextProtos = []string{"h2"}
		// One connection carries every stream: without this bound, requests
		// that start together before the first connection is up each dial.
		base.MaxConnsPerHost = 1
	default:
		tlsCfg.NextProtos = []string{"http/1.1"}
	}
	return &Transport{cfg: cfg, dialer: d, base: base}
}

// Client returns an *http.Client that uses t, for handing to an SDK.
func (t *Transport) Client() *http.Client { return &http.Client{Transport: t} }

// Strategy returns the connection strategy in use.
func (t *Transport) Strategy() Strategy { return t.cfg.Strategy }

// ConnsOpened is the number of TCP connections dialed so far.
func (t *Transport) ConnsOpened() int64 { return t.dialer.conns.Load() }

// TLSHandshakes is the number of completed TLS handshakes so far.
func (t *Transport) TLSHandshakes() int64 { return t.dialer.tlsHS.Load() }

// CloseIdleConnections closes kept-alive connections, e.g. to start cold.
func (t *Transport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// RoundTrip performs one HTTP exchange and records its phases into the
// operation found in the request's context, if any.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	op := opFrom(req.Context())
	if op == nil {
		return t.base.RoundTrip(req)
	}
	ex := &exchange{start: time.Now()}
	body := hasBody(req)
	ctx := httptrace.WithClientTrace(req.Context(), ex.clientTrace(body))
	if t.cfg.ExpectContinue && body {
		req = req.Clone(ctx)
		req.Header.Set("Expect", "100-continue")
		// Go's HTTP/1.1 transport waits for 100 Continue only when
		// req.ProtoAtLeast(1, 1), and smithy-go (aws-sdk-go-v2) builds
		// its requests with no protocol version at all.
		if !req.ProtoAtLeast(1, 1) {
			req.Proto, req.ProtoMajor, req.ProtoMinor = "HTTP/1.1", 1, 1
		}
	} else {
		req = req.WithContext(ctx)
	}
	ex.expectSent = body && expectsContinue(req.Header)
	op.add(ex)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		ex.finish(err)
		return nil, err
	}
	ex.gotResponse(resp)
	ex.body = tracedBody{rc: resp.Body, ex: ex}
	resp.Body = &ex.body
	return resp, nil
}

// sdkExpectContinueTimeout is the ExpectContinueTimeout of the default
// transports of aws-sdk-go-v2, azcore and google.golang.org/api alike.
const sdkExpectContinueTimeout = time.Second

// hasBody reports whether req sends a body. A client request's
// ContentLength of 0 with a body means "unknown" (a chunked stream, as the
// GCS writer sends), not "empty".
func hasBody(req *http.Request) bool {
	return req.Body != nil && req.Body != http.NoBody
}

// expectsContinue reports whether h asks for "100 Continue".
func expectsContinue(h http.Header) bool {
	for _, v := range h.Values("Expect") {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "100-continue") {
				return true
			}
		}
	}
	return false
}

// tracedBody marks the end of the recv phase when the body is fully read.
type tracedBody struct {
	rc io.ReadCloser
	ex *exchange
	n  int64
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		b.ex.bodyRead(b.n, nil)
	} else if err != nil {
		b.ex.bodyRead(b.n, err)
	}
	return n, err
}

func (b *tracedBody) Close() error {
	err := b.rc.Close()
	b.ex.bodyRead(b.n, nil)
	return err
}

var tlsVersionNames = map[uint16]string{
	tls.VersionTLS10: "TLS1.0", tls.VersionTLS11: "TLS1.1",
	tls.VersionTLS12: "TLS1.2", tls.VersionTLS13: "TLS1.3",
}

// TLSVersionName returns "TLS1.3" and the like; "" for 0.
func TLSVersionName(v uint16) string {
	if v == 0 {
		return ""
	}
	if n, ok := tlsVersionNames[v]; ok {
		return n
	}
	return fmt.Sprintf("0x%04x", v)
}
