// Package lab runs storage servers inside the objbench process, on
// 127.0.0.1, behind an emulated network link, so that every experiment can
// run without a cloud account and with round trips of the right size.
//
// Each API (s3, gcs, azure) has an upstream server on a loopback port and,
// when the link emulates anything, a toxiproxy proxy in front of it; clients
// use the proxy's address and add the TCP handshake's round trip in their
// dialer (HandshakeDelay). Service time and faults are server-side.
package lab

import (
	"github.com/objbench/objbench/internal/document"

	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/storage"
)

// Bucket is the bucket (or container) every embedded server starts with.
const Bucket = "objbench"

// APIs the lab can serve.
var APIs = []string{"s3", "gcs", "azure"}

// labCredentials are the embedded servers' fixed local keys: not secret,
// and still never printed by run.
var labCredentials = storage.StaticCredentials{AccessKeyID: "objbench-lab", SecretAccessKey: "objbench-lab-secret"}

// Config selects what the lab serves and how the link behaves.
type Config struct {
	// APIs to serve; default {"s3"}.
	APIs []string
	// Profile names the link; default "local".
	Profile string
	// RTT, Jitter and Bandwidth (bits/s) override the profile when not nil.
	RTT, Jitter *time.Duration
	Bandwidth   *int64
	// TLS serves HTTPS (HTTP/2 offered) from an in-memory CA.
	TLS bool
	// TLSVersion caps the server's TLS version: tls.VersionTLS13 (default) or tls.VersionTLS12.
	TLSVersion uint16
	// ServiceTime is added by the server before each response.
	ServiceTime time.Duration
	// IdleTimeout closes keep-alive connections idle longer than this; default 20 s.
	IdleTimeout time.Duration
	Faults      Faults
	// Port is the first port to listen on (s3, then gcs, then azure); 0 picks free ports.
	Port int
	// ForceLink routes through the link proxy even when it emulates nothing (benchmarks).
	ForceLink bool
}

// Lab is a running set of embedded servers.
type Lab struct {
	cfg       Config
	profile   string
	link      Link
	ca        *authority
	stop      chan struct{}
	endpoints map[string]*endpoint
	proxied   map[string]bool // proxy addresses, for HandshakeDelay
	// Counts of requests served and faults injected.
	Counts    FaultCounts
	closeOnce sync.Once
}

type endpoint struct {
	api    string
	url    string
	direct string // the upstream server's own URL, bypassing the link

	server   *http.Server
	proxy    *proxy
	done     chan error
	shutdown func() // extra teardown (a child process)
}

// Start serves the configured endpoints until Close. Every failure leaves
// nothing running.
func Start(ctx context.Context, cfg Config) (_ *Lab, err error) {
	if len(cfg.APIs) == 0 {
		cfg.APIs = []string{"s3"}
	}
	prof, err := LookupProfile(cfg.Profile)
	if err != nil {
		return nil, err
	}
	link := prof.Link
	if cfg.RTT != nil {
		link.RTT = *cfg.RTT
	}
	if cfg.Jitter != nil {
		link.Jitter = *cfg.Jitter
	}
	if cfg.Bandwidth != nil {
		link.Bandwidth = *cfg.Bandwidth
	}
	if err := checkLink(link); err != nil {
		return nil, err
	}
	if cfg.TLSVersion == 0 {
		cfg.TLSVersion = tls.VersionTLS13
	}
	if cfg.TLSVersion != tls.VersionTLS13 && cfg.TLSVersion != tls.VersionTLS12 {
		return nil, fmt.Errorf("lab TLS version must be 1.2 or 1.3")
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 20 * time.Second
	}
	if cfg.IdleTimeout < 0 || cfg.ServiceTime < 0 {
		return nil, fmt.Errorf("lab idle timeout and service time must not be negative")
	}
	if cfg.Port < 0 || cfg.Port > 65535-len(cfg.APIs) {
		return nil, fmt.Errorf("lab port %d out of range", cfg.Port)
	}
	l := &Lab{cfg: cfg, profile: prof.Name, link: link, stop: make(chan struct{}),
		endpoints: map[string]*endpoint{}, proxied: map[string]bool{}}
	if cfg.TLS {
		if l.ca, err = newAuthority(); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	for i, api := range cfg.APIs {
		port := 0
		if cfg.Port > 0 {
			port = cfg.Port + i
		}
		var ep *endpoint
		switch api {
		case "s3":
			ep, err = l.serve(ctx, api, port, newS3Handler)
		case "gcs":
			ep, err = l.serve(ctx, api, port, newGCSHandler)
		case "azure":
			ep, err = l.startAzurite(ctx, port)
		default:
			err = fmt.Errorf("unknown lab API %q: use s3, gcs or azure", api)
		}
		if err != nil {
			return nil, err
		}
		l.endpoints[api] = ep
	}
	return l, nil
}

func checkLink(l Link) error {
	switch {
	case l.RTT < 0 || l.Jitter < 0 || l.Bandwidth < 0:
		return fmt.Errorf("lab link: round-trip time, jitter and bandwidth must not be negative")
	case l.RTT > 10*time.Second:
		return fmt.Errorf("lab link: round-trip time %s is absurd (at most 10s)", l.RTT)
	case l.Jitter > l.RTT && l.RTT > 0 || l.Jitter > 10*time.Second:
		return fmt.Errorf("lab link: jitter %s larger than the round trip %s", l.Jitter, l.RTT)
	}
	return nil
}

// handlerFunc builds an API's handler once its public URL is known.
type handlerFunc func(publicURL string) (http.Handler, error)

// serve starts one embedded API server and, when needed, its link proxy.
func (l *Lab) serve(ctx context.Context, api string, port int, newHandler handlerFunc) (*endpoint, error) {
	useLink := l.link.Emulates() || l.cfg.ForceLink
	listenAddr := "127.0.0.1:" + strconv.Itoa(port)
	if useLink {
		listenAddr = "127.0.0.1:0" // the proxy takes the public port
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listenAddr)
	if err != nil {
		return nil, fmt.Errorf("lab %s: listen on %s: %w", api, listenAddr, portHint(err))
	}
	ep := &endpoint{api: api, done: make(chan error, 1)}
	public := ln.Addr().String()
	if useLink {
		p, err := startProxy(api, "127.0.0.1:"+strconv.Itoa(port), ln.Addr().String(), l.link)
		if err != nil {
			ln.Close()
			return nil, portHint(err)
		}
		ep.proxy = p
		public = p.Addr()
		l.proxied[public] = true
	}
	scheme := "http"
	if l.ca != nil {
		scheme = "https"
	}
	ep.url = scheme + "://" + public
	ep.direct = scheme + "://" + ln.Addr().String()
	h, err := newHandler(ep.url)
	if err != nil {
		ln.Close()
		if ep.proxy != nil {
			ep.proxy.Close()
		}
		return nil, fmt.Errorf("lab %s: %w", api, err)
	}
	b := &behaviour{api: api, serviceTime: l.cfg.ServiceTime, faults: l.cfg.Faults, counts: &l.Counts, stop: l.stop}
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetHTTP2(true)
	protos.SetUnencryptedHTTP2(true)
	ep.server = &http.Server{
		Handler:           b.wrap(h),
		ReadHeaderTimeout: time.Minute,
		IdleTimeout:       l.cfg.IdleTimeout,
		Protocols:         &protos,
		ErrorLog:          discardLog,
	}
	if l.ca != nil {
		ep.server.TLSConfig = l.ca.serverConfig(l.cfg.TLSVersion)
		ln = tls.NewListener(ln, ep.server.TLSConfig)
	}
	go func() { ep.done <- ep.server.Serve(ln) }()
	return ep, nil
}

func portHint(err error) error {
	if isAddrInUse(err) {
		return fmt.Errorf("%w (the port is taken: choose another with --port, or 0 for any free port)", err)
	}
	return err
}

// Endpoint is the URL clients use for api, e.g. http://127.0.0.1:40123.
func (l *Lab) Endpoint(api string) string {
	if ep := l.endpoints[api]; ep != nil {
		return ep.url
	}
	return ""
}

// Target is the storage target for api's bucket.
func (l *Lab) Target(api string) storage.Target {
	switch api {
	case "gcs":
		return storage.Target{Scheme: "gs", Bucket: Bucket}
	case "azure":
		return storage.Target{Scheme: "az", Account: azuriteAccount, Bucket: Bucket}
	}
	return storage.Target{Scheme: "s3", Bucket: Bucket}
}

// Credentials returns the fixed local keys of api's endpoint: the S3 keys,
// Azurite's well-known account and key, nothing for GCS (no auth).
func (l *Lab) Credentials(api string) *storage.StaticCredentials {
	switch api {
	case "gcs":
		return nil
	case "azure":
		return &storage.StaticCredentials{AccessKeyID: azuriteAccount, SecretAccessKey: azuriteKey}
	}
	c := labCredentials
	return &c
}

// ClientTLS is the TLS configuration that trusts the lab's CA; nil without TLS.
func (l *Lab) ClientTLS() *tls.Config {
	if l.ca == nil {
		return nil
	}
	return &tls.Config{RootCAs: l.ca.pool, MinVersion: tls.VersionTLS12}
}

// CAPEM is the lab CA's certificate in PEM; nil without TLS.
func (l *Lab) CAPEM() []byte {
	if l.ca == nil {
		return nil
	}
	return l.ca.certPEM
}

// Link is the link in force (the profile with its overrides).
func (l *Lab) Link() Link { return l.link }

// Profile is the name of the profile in use.
func (l *Lab) Profile() string { return l.profile }

// HandshakeDelay is the client-side delay for a new TCP connection to the
// lab: one round trip (with jitter) to the link's proxies, nothing elsewhere.
func (l *Lab) HandshakeDelay() func(addr string) time.Duration {
	link := l.link
	proxied := l.proxied
	return func(addr string) time.Duration {
		if !proxied[addr] || link.RTT == 0 {
			return 0
		}
		d := link.RTT
		if link.Jitter > 0 {
			d += time.Duration(rand.Int64N(int64(2*link.Jitter+1))) - link.Jitter
		}
		return max(d, 0)
	}
}

// Info is the lab block of the JSON contract for api.
func (l *Lab) Info(api string) *document.LabInfo {
	return &document.LabInfo{
		API: api, Profile: l.profile,
		RTTms:     float64(l.link.RTT) / float64(time.Millisecond),
		JitterMs:  float64(l.link.Jitter) / float64(time.Millisecond),
		Bandwidth: FormatBandwidth(l.link.Bandwidth),
		TLS:       l.ca != nil,
	}
}

// Close stops every server, proxy and child process and waits for them.
func (l *Lab) Close() error {
	var errs []error
	l.closeOnce.Do(func() {
		close(l.stop)
		for _, ep := range l.endpoints {
			if ep.proxy != nil {
				ep.proxy.Close()
			}
			if ep.server != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				if err := ep.server.Shutdown(ctx); err != nil {
					ep.server.Close()
				}
				cancel()
				if err := <-ep.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
					errs = append(errs, err)
				}
			}
			if ep.shutdown != nil {
				ep.shutdown()
			}
		}
	})
	return errors.Join(errs...)
}
