// Package lab runs storage servers inside the objbench process behind an
// emulated network, so that every experiment can run without a cloud
// account and with the round trips, slow start and queues of a real path.
//
// When the link emulates anything, the servers listen on the server stack
// of an emulated network (package netem: two user-space TCP/IP stacks and a
// wire that delays, rate-limits, queues and drops packets). objbench's own
// client dials into the client stack in-process (Dial); any other program
// connects to a local endpoint on 127.0.0.1 whose accepting side opens its
// connection across the wire before forwarding a byte, so its first request
// pays the handshake too. Service time, idle timeout and faults are the
// servers'. The local profile serves on loopback directly.
package lab

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/timeline"
)

// Bucket is the bucket (or container) every embedded server starts with.
const Bucket = server.Bucket

// APIs the lab can serve.
var APIs = []string{"s3", "gcs", "azure"}

// labKeys are the embedded servers' fixed local keys: not secret,
// and still never printed by run.
var labKeys = Keys{AccessKeyID: "objbench-lab", SecretAccessKey: "objbench-lab-secret"}

// Config selects what the lab serves and how the link behaves.
type Config struct {
	// APIs to serve; default {"s3"}.
	APIs []string
	// Profile names the link; default "local".
	Profile string
	// RTT, Jitter, Bandwidth (bits/s) and Loss (0-1, each way) override
	// the profile when not nil.
	RTT, Jitter *time.Duration
	Bandwidth   *int64
	Loss        *float64
	// Bursty, Reorder and Duplicate override the profile's bursty loss,
	// reordering and duplication (each way) when not nil. One loss model
	// is in force: a Loss given clears the profile's Bursty, and a Bursty
	// given comes with a Loss of 0.
	Bursty    *netem.GilbertElliott
	Reorder   *netem.Reorder
	Duplicate *float64
	// Queue is the bottleneck's drop-tail queue in bytes each way; 0 is one
	// bandwidth-delay product (at least 256 packets).
	Queue int
	// MTU of the wire; 0 is 1500.
	MTU int
	// RecvBuffer and SendBuffer cap the TCP buffers' autotuning on both
	// stacks; 0 is a default Linux host's 6 MiB and 4 MiB.
	RecvBuffer, SendBuffer int
	// DNSTime is the lab resolver's lookup time. When positive, Endpoint
	// names the servers under .test and objbench's client looks them up
	// (Resolver); DNSTTL is the answers' time to live.
	DNSTime, DNSTTL time.Duration
	// TLS serves HTTPS (HTTP/2 offered) from an in-memory CA.
	TLS bool
	// TLSVersion caps the server's TLS version: tls.VersionTLS13 (default) or tls.VersionTLS12.
	TLSVersion uint16
	// ServiceTime is added by the server before each response.
	ServiceTime time.Duration
	// IdleTimeout closes keep-alive connections idle longer than this; default 20 s.
	IdleTimeout time.Duration
	Faults      server.Faults
	// Port is the first port to listen on (s3, then gcs, then azure); 0 picks free ports.
	Port int
	// ForceLink routes through the emulated network even when the link
	// emulates nothing (benchmarks).
	ForceLink bool
	// Record keeps every connection and request the S3 and GCS servers
	// see (Recorder), for explain and lab --record.
	Record bool
	// ExactWire keeps each way of the wire's CPU awake for the last
	// 0.3 ms before each packet's time (netem.Config.Exact), so that
	// packets leave on time behind a small queue, where a CPU that sleeps
	// between packets hands a quarter of them over 0.1 ms late and that
	// alone moves a transfer by up to three times (docs/lab.md). It costs
	// up to a core a way while packets are in flight; it needs a
	// bandwidth cap (Settings.Config refuses it without one).
	ExactWire bool
	// Network is the path of a program run by Exec: NetworkAuto,
	// NetworkNetns or NetworkNetstack ("" is NetworkNetstack).
	Network string
	// OwnClient says only objbench's own client takes the path (run): auto
	// then picks the kernel's TCP only where the user-space stacks differ
	// from it (a bandwidth cap, random loss), and keeps their lower cost
	// elsewhere.
	OwnClient bool
	// Service draws each request's service time (a measured profile's
	// distribution), held before its first response byte; with ServiceTime.
	Service server.ServiceModel
	// HTTP1Only stops offering HTTP/2 (a measured server that did not).
	HTTP1Only bool
	// ProfileName replaces the profile's name (a measured profile's).
	ProfileName string
	// Compensate takes the lab's own time per exchange, measured at the
	// start, out of each Service draw (a twin of a measured bucket).
	Compensate bool
	// Upstream serves a real server behind the wire instead of the
	// embedded one of its API; the other APIs are not served.
	Upstream *server.Upstream
	// Express serves the S3 bucket as an S3 Express One Zone directory
	// bucket (server.ExpressBucket): CreateSession, session-signed
	// requests, and the class's service time when none is set.
	Express bool
	// SessionLifetime is how long a directory bucket's session lasts; 0
	// is S3's 5 minutes.
	SessionLifetime time.Duration
	// Limit is the servers' request-rate limits, per API (none: unlimited).
	Limit server.Limits
}

// Lab is a running set of embedded servers.
type Lab struct {
	cfg     Config
	profile string
	link    Link
	ca      *authority
	stop    chan struct{}
	// stopped ends with stop, for what waits with a context (hold).
	stopped    context.Context
	endStopped context.CancelFunc
	endpoints  map[string]*endpoint
	net        *netem.Network // nil on the direct path
	kn         *kernelNet     // the program's path on the netns path; nil else
	notice     string
	wirePorts  map[int]bool // local endpoint ports that lead across the wire
	dns        *dnsServer
	rec        *timeline.Recorder // nil unless Config.Record
	express    *server.Express    // nil unless Config.Express
	// Counts of requests served, faults injected and requests throttled.
	Counts    server.FaultCounts
	limiters  map[string]*server.Limiter // by API, the limited ones
	closeOnce sync.Once
	own       atomic.Int64 // a twin's own time per exchange, ns (Config.Compensate)
}

type endpoint struct {
	api    string
	url    string // for objbench's client: by name when the lab resolves names
	local  string // on 127.0.0.1, for any client
	direct string // the server reached on loopback, bypassing the network
	prog   string // for the program Exec runs, on the netns path

	server   *http.Server
	serving  int // Serve calls, each sending to done
	fwd      *forwarder
	done     chan error
	shutdown func() // extra teardown (a child process)
}

// Start serves the configured endpoints until Close. Every failure leaves
// nothing running.
func Start(ctx context.Context, cfg Config) (_ *Lab, err error) {
	if len(cfg.APIs) == 0 {
		cfg.APIs = []string{"s3"}
	}
	if cfg.Upstream != nil {
		cfg.APIs = []string{cfg.Upstream.API}
	}
	prof, err := LookupProfile(cfg.Profile)
	if err != nil {
		return nil, err
	}
	if cfg.ProfileName != "" {
		prof.Name = cfg.ProfileName
	}
	link := cfg.link(prof)
	// Settings.Config checks what the user gives; this guard stops only a
	// Config built by hand (a programming error) from reaching the wire.
	if err := checkLink(link); err != nil {
		return nil, fmt.Errorf("lab: unchecked config: %w", err)
	}
	if err := checkNetwork(cfg); err != nil {
		return nil, fmt.Errorf("lab: unchecked config: %w", err)
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
	if cfg.Express && (cfg.Upstream != nil || !slices.Contains(cfg.APIs, "s3")) {
		return nil, fmt.Errorf("lab: a directory bucket (Express) is the embedded S3 server's: serve s3, without an upstream")
	}
	if cfg.SessionLifetime < 0 {
		return nil, fmt.Errorf("lab: session lifetime must not be negative")
	}
	if cfg.Port < 0 || cfg.Port > 65535-len(cfg.APIs) {
		return nil, fmt.Errorf("lab port %d out of range", cfg.Port)
	}
	l := &Lab{cfg: cfg, profile: prof.Name, link: link, stop: make(chan struct{}),
		endpoints: map[string]*endpoint{}, wirePorts: map[int]bool{}}
	l.stopped, l.endStopped = context.WithCancel(context.Background())
	if cfg.Record {
		l.rec = timeline.NewRecorder(cfg.IdleTimeout)
	}
	if cfg.Express {
		l.express = server.NewExpress("", cfg.SessionLifetime, map[string]string{labKeys.AccessKeyID: labKeys.SecretAccessKey})
		l.cfg.Limit = expressLimits(cfg.Limit)
	}
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
	if link.Emulates() || cfg.ForceLink {
		if l.net, err = netem.New(l.netemConfig()); err != nil {
			return nil, fmt.Errorf("lab network: %w", err)
		}
	}
	mode, notice, err := l.chooseNetwork()
	if err != nil {
		return nil, err
	}
	l.notice = notice
	if mode == NetworkNetns {
		if l.kn, err = l.startKernelNet(); err != nil {
			return nil, fmt.Errorf("lab network: %w", err)
		}
	}
	if cfg.DNSTime > 0 {
		if l.dns, err = startDNS(cfg.DNSTime, cfg.DNSTTL); err != nil {
			return nil, err
		}
	}
	for i, api := range cfg.APIs {
		port := 0
		if cfg.Port > 0 {
			port = cfg.Port + i
		}
		var ep *endpoint
		switch {
		case cfg.Upstream != nil:
			ep, err = l.serve(ctx, api, port, cfg.Upstream.Handler)
		case api == "s3" && l.express != nil:
			ep, err = l.serve(ctx, api, port, l.express.Handler)
		case api == "s3":
			ep, err = l.serve(ctx, api, port, server.S3Handler)
		case api == "gcs":
			ep, err = l.serve(ctx, api, port, server.GCSHandler)
		case api == "azure":
			ep, err = l.startAzurite(ctx, port)
		default:
			err = fmt.Errorf("unknown lab API %q: use s3, gcs or azure", api)
		}
		if err != nil {
			return nil, err
		}
		l.endpoints[api] = ep
	}
	if cfg.Service != nil && cfg.Compensate {
		own, err := l.ownExchangeTime(ctx, cfg.APIs[0])
		if err != nil {
			return nil, err
		}
		l.own.Store(int64(own))
		if l.rec != nil { // its own requests are not the program's
			l.rec.WaitClosed(time.Second)
			l.rec.Reset()
		}
	}
	return l, nil
}

// StartAll starts a lab serving cfg.APIs (every API when none), and
// serves the others alone when Azurite is missing (noAzure): the one
// fallback for a machine without Azurite. apis are the APIs asked for,
// less Azure when it is left out. A start that fails for another reason
// is the error, said to be the lab's ("lab: ...") once here for every
// command that starts one.
func StartAll(ctx context.Context, cfg Config) (l *Lab, apis []string, noAzure bool, err error) {
	if len(cfg.APIs) == 0 {
		cfg.APIs = slices.Clone(APIs)
	}
	l, err = Start(ctx, cfg)
	if errors.Is(err, ErrNoAzurite) && len(cfg.APIs) > 1 {
		noAzure = true
		cfg.APIs = slices.DeleteFunc(slices.Clone(cfg.APIs), func(a string) bool { return a == "azure" })
		l, err = Start(ctx, cfg)
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("lab: %w", err)
	}
	return l, cfg.APIs, noAzure, nil
}

// link is the link cfg asks for: prof's, with what cfg overrides.
func (cfg Config) link(prof Profile) Link {
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
	if cfg.Loss != nil {
		link.Loss = *cfg.Loss
	}
	if cfg.Bursty != nil {
		link.Bursty = *cfg.Bursty
	}
	if cfg.Reorder != nil {
		link.Reorder = *cfg.Reorder
	}
	if cfg.Duplicate != nil {
		link.Duplicate = *cfg.Duplicate
	}
	return link
}

// checkRTT bounds a round trip or its jitter (MaxRTT); the error is the
// range, for the caller to name the setting.
func checkRTT(d time.Duration) error {
	if d < 0 || d > MaxRTT {
		return fmt.Errorf("from 0 to %s", MaxRTT)
	}
	return nil
}

// checkLink is the rule for a link: Settings.Config applies it to what the
// user asks for, Start to what it is given (a guard).
func checkLink(l Link) error {
	switch {
	case l.RTT < 0 || l.Jitter < 0 || l.Bandwidth < 0:
		return fmt.Errorf("lab link: round-trip time, jitter and bandwidth must not be negative")
	case l.Loss < 0 || l.Loss > 1 || l.Loss != l.Loss:
		return fmt.Errorf("lab link: loss %g%% outside 0-100%%", l.Loss*100)
	case l.Loss > 0 && l.Bursty.On():
		return fmt.Errorf("lab link: random loss %g%% and bursty loss (%s) at once: give one loss model", l.Loss*100, l.LossModel())
	case l.Reorder.Share > 0 && l.RTT == 0:
		return fmt.Errorf("lab link: reordering (%s) needs a round trip: reordered packets skip the delay the others wait out", l.Impairments())
	case (netem.Path{Bursty: l.Bursty, Reorder: l.Reorder, Duplicate: l.Duplicate, Delay: l.RTT / 2}).Check() != nil:
		return fmt.Errorf("lab link: %w", (netem.Path{Bursty: l.Bursty, Reorder: l.Reorder, Duplicate: l.Duplicate, Delay: l.RTT / 2}).Check())
	case l.RTT > MaxRTT:
		return fmt.Errorf("lab link: round-trip time %s is absurd (at most %s)", l.RTT, MaxRTT)
	case l.Jitter > l.RTT && l.RTT > 0 || l.Jitter > MaxRTT:
		return fmt.Errorf("lab link: jitter %s larger than the round trip %s", l.Jitter, l.RTT)
	}
	return nil
}

// handlerFunc builds an API's handler once its public URL is known.
type handlerFunc func(publicURL string) (http.Handler, error)

// serve starts one embedded API server: on loopback at port when the path
// is direct; otherwise on the server stack, with a local endpoint at port
// that forwards across the wire, and a loopback listener for baselines.
func (l *Lab) serve(ctx context.Context, api string, port int, newHandler handlerFunc) (_ *endpoint, err error) {
	listenAddr := "127.0.0.1:" + strconv.Itoa(port)
	pub, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listenAddr)
	if err != nil {
		return nil, fmt.Errorf("lab %s: listen on %s: %w", api, listenAddr, portHint(err))
	}
	ep := &endpoint{api: api, done: make(chan error, 2)}
	listeners := []net.Listener{pub}
	defer func() {
		if err != nil {
			for _, ln := range listeners {
				ln.Close()
			}
		}
	}()
	pubPort := pub.Addr().(*net.TCPAddr).Port
	ep.local = l.scheme() + "://" + pub.Addr().String()
	ep.direct = ep.local
	if l.net != nil {
		wire, err := l.net.Listen(pubPort)
		if err != nil {
			return nil, fmt.Errorf("lab %s: %w", api, err)
		}
		direct, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
		if err != nil {
			wire.Close()
			return nil, fmt.Errorf("lab %s: %w", api, err)
		}
		listeners = []net.Listener{wire, direct}
		ep.direct = l.scheme() + "://" + direct.Addr().String()
		if l.kn != nil {
			kln, err := l.kn.listen(pubPort)
			if err != nil {
				wire.Close()
				direct.Close()
				return nil, fmt.Errorf("lab %s: %w", api, err)
			}
			listeners = append(listeners, kln)
			ep.prog = l.scheme() + "://" + net.JoinHostPort(serverAddr.String(), strconv.Itoa(pubPort))
		}
		ep.fwd = l.forward(pub, pubPort)
		l.wirePorts[pubPort] = true
	}
	ep.url = l.publicURL(api, pubPort, ep.local)
	public := ep.local
	if ep.prog != "" {
		public = ep.prog // the URLs a server hands out (GCS upload sessions) must reach it from the program's namespace
	}
	h, err := newHandler(public)
	if err != nil {
		if ep.fwd != nil {
			ep.fwd.Close()
		}
		return nil, fmt.Errorf("lab %s: %w", api, err)
	}
	if c, ok := h.(io.Closer); ok { // the store's folder
		ep.shutdown = func() { _ = c.Close() }
	}
	if l.cfg.Service != nil {
		model := l.cfg.Service
		if l.cfg.Compensate {
			model = server.Compensated{ServiceModel: model, Own: &l.own}
		}
		h = server.WithService(api, model, l.stopped, h)
	}
	b := &server.Behaviour{API: api, ServiceTime: l.serviceTime(api), Faults: l.cfg.Faults, Counts: &l.Counts, Stop: l.stop, Limiter: l.limiter(api)}
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetHTTP2(!l.cfg.HTTP1Only)
	protos.SetUnencryptedHTTP2(!l.cfg.HTTP1Only)
	ep.server = &http.Server{
		Handler:           b.Wrap(h),
		ReadHeaderTimeout: time.Minute,
		IdleTimeout:       l.cfg.IdleTimeout,
		Protocols:         &protos,
		ErrorLog:          discardLog,
	}
	if l.ca != nil {
		ep.server.TLSConfig = l.ca.serverConfig(l.cfg.TLSVersion)
		if l.cfg.HTTP1Only {
			ep.server.TLSConfig.NextProtos = []string{"http/1.1"}
		}
	}
	tlsConfig := ep.server.TLSConfig
	if l.rec != nil {
		ep.server.Handler = l.rec.Wrap(ep.server.Handler)
		ep.server.ConnState, ep.server.ConnContext = l.rec.ConnState, l.rec.ConnContext
		if tlsConfig != nil {
			tlsConfig = l.rec.TLSConfig(tlsConfig)
		}
	}
	for _, ln := range listeners {
		if l.rec != nil {
			ln = l.rec.Listener(api, ln)
		}
		if l.ca != nil {
			ln = tls.NewListener(ln, tlsConfig)
		}
		ep.serving++
		go func() { ep.done <- ep.server.Serve(ln) }()
	}
	return ep, nil
}

func (l *Lab) scheme() string {
	if l.ca != nil {
		return "https"
	}
	return "http"
}

// publicURL is the URL objbench's client uses: by name when the lab
// resolves names, else the local endpoint's.
func (l *Lab) publicURL(api string, port int, local string) string {
	if l.dns == nil {
		return local
	}
	return l.scheme() + "://" + net.JoinHostPort(hostName(api), strconv.Itoa(port))
}

var discardLog = log.New(io.Discard, "", 0)

func isAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

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

// LocalEndpoint is api's URL on 127.0.0.1, for clients outside objbench
// (its path across the network starts at the local endpoint).
func (l *Lab) LocalEndpoint(api string) string {
	if ep := l.endpoints[api]; ep != nil {
		return ep.local
	}
	return ""
}

// DirectEndpoint is api's server reached on loopback, bypassing the
// network (lab check's baseline); the same as Endpoint on the direct path.
func (l *Lab) DirectEndpoint(api string) string {
	if ep := l.endpoints[api]; ep != nil {
		return ep.direct
	}
	return ""
}

// Config is the configuration in force, defaults filled in.
func (l *Lab) Config() Config { return l.cfg }

// Wire is the emulated wire's configuration and, while packets cross it,
// its counters (nil on the direct path): on the netns path the pipe's.
func (l *Lab) Wire() (netem.Config, func() (up, down netem.Stats)) {
	switch {
	case l.kn != nil:
		return l.netemConfig(), l.kn.pair.Pipe.Stats
	case l.net != nil:
		return l.netemConfig(), l.net.Stats
	}
	return l.netemConfig(), nil
}

// WireMeter starts counting what the wire does from now: the func it
// returns gives the counts since, each way, and how well the machine kept
// the wire's time (nil on the direct path).
func (l *Lab) WireMeter() func() *document.WireStats {
	cfg, stats := l.Wire()
	if stats == nil {
		return func() *document.WireStats { return nil }
	}
	m := netem.NewLateMeter(stats)
	return func() *document.WireStats {
		up, down := m.Since()
		both := up.Add(down)
		return &document.WireStats{Up: wireWay(up), Down: wireWay(down),
			LateAfterMs: float64(cfg.LateAfter()) / float64(time.Millisecond),
			Busy:        both.Busy(), Imprecise: cfg.Imprecise(both)}
	}
}

func wireWay(s netem.Stats) document.WireWay {
	return document.WireWay{Packets: s.Packets, Bytes: s.Bytes, QueueDrops: s.QueueDrops, LossDrops: s.LossDrops, Late: s.Late, Tardy: s.Tardy}
}

// Dial connects objbench's own client to addr: across the emulated network,
// in-process, for the lab's endpoints (the handshake is the stacks'; on the
// netns path the kernel's, from the program's namespace); any other
// address directly.
func (l *Lab) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if l.net != nil {
		if _, p, err := net.SplitHostPort(addr); err == nil {
			if port, err := strconv.Atoi(p); err == nil && l.wirePorts[port] {
				if l.kn != nil {
					return l.kn.dial(ctx, port)
				}
				c, err := l.net.Dial(ctx, port)
				if err != nil {
					return nil, err
				}
				return c, nil
			}
		}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// Resolver answers the lab's names (with the lab's lookup time); nil when
// the lab serves no names.
func (l *Lab) Resolver() *net.Resolver {
	if l.dns == nil {
		return nil
	}
	return l.dns.resolver()
}

// ResolverAddr is the lab resolver's UDP address; "" when it serves no names.
func (l *Lab) ResolverAddr() string {
	if l.dns == nil {
		return ""
	}
	return l.dns.Addr()
}

// Location is a lab bucket as a storage URL's parts (scheme s3, gs or az).
type Location struct {
	Scheme, Account, Bucket string
}

// Location is where api's bucket is: the lab's, or the upstream server's.
func (l *Lab) Location(api string) Location {
	if up := l.cfg.Upstream; up != nil {
		return Location{Scheme: map[string]string{"s3": "s3", "gcs": "gs"}[up.API], Bucket: up.Bucket}
	}
	switch api {
	case "gcs":
		return Location{Scheme: "gs", Bucket: Bucket}
	case "azure":
		return Location{Scheme: "az", Account: server.AzuriteAccount, Bucket: Bucket}
	}
	if l.express != nil {
		return Location{Scheme: "s3", Bucket: l.express.Bucket}
	}
	return Location{Scheme: "s3", Bucket: Bucket}
}

// Keys are an endpoint's access key and secret.
type Keys struct {
	AccessKeyID, SecretAccessKey string
}

// String hides the keys, as storage.StaticCredentials does.
func (Keys) String() string { return "[redacted]" }

// Keys returns the fixed local keys of api's endpoint: the S3 keys,
// Azurite's well-known account and key, nothing for GCS (no auth) nor for
// an upstream server (the client's own, from its provider's chain).
func (l *Lab) Keys(api string) *Keys {
	switch {
	case l.cfg.Upstream != nil:
		return nil
	case api == "gcs":
		return nil
	case api == "azure":
		return &Keys{AccessKeyID: server.AzuriteAccount, SecretAccessKey: server.AzuriteKey}
	}
	c := labKeys
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

// Upstream is the real server the lab fronts; nil for the embedded ones.
func (l *Lab) Upstream() *server.Upstream { return l.cfg.Upstream }

// Recorder is the record of what the servers saw; nil unless Config.Record.
func (l *Lab) Recorder() *timeline.Recorder { return l.rec }

// IdleTimeout is the servers' keep-alive timeout.
func (l *Lab) IdleTimeout() time.Duration { return l.cfg.IdleTimeout }

// Link is the link in force (the profile with its overrides).
func (l *Lab) Link() Link { return l.link }

// Profile is the name of the profile in use.
func (l *Lab) Profile() string { return l.profile }

// Info is the lab block of the JSON contract for api.
func (l *Lab) Info(api string) *document.LabInfo {
	n := l.Network()
	return l.withExpress(api, &document.LabInfo{
		API: api, Profile: l.profile,
		RTTms:       float64(l.link.RTT) / float64(time.Millisecond),
		JitterMs:    float64(l.link.Jitter) / float64(time.Millisecond),
		Bandwidth:   FormatBandwidth(l.link.Bandwidth),
		TLS:         l.ca != nil,
		Loss:        l.link.Loss,
		LossModel:   lossModelInfo(l.link.Bursty),
		Reorder:     reorderInfo(l.link.Reorder),
		Duplicate:   l.link.Duplicate,
		Queue:       n.Queue,
		MTU:         n.MTU,
		DNSms:       float64(l.cfg.DNSTime) / float64(time.Millisecond),
		Network:     n.Model,
		NetworkNote: l.notice,
		Rootless:    l.Rootless(),
		RecvBuffer:  n.RecvBuffer,
		SendBuffer:  n.SendBuffer,
		Limit:       l.limitString(api),
		ExactWire:   l.cfg.ExactWire,
	})
}

// Close stops every server, proxy and child process and waits for them.
func (l *Lab) Close() error {
	var errs []error
	l.closeOnce.Do(func() {
		if l.rec != nil {
			l.rec.Stop()
		}
		close(l.stop)
		l.endStopped()
		for _, ep := range l.endpoints {
			if ep.fwd != nil {
				ep.fwd.Close()
			}
			if ep.server != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				if err := ep.server.Shutdown(ctx); err != nil {
					ep.server.Close()
				}
				cancel()
				for range ep.serving {
					if err := <-ep.done; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
						errs = append(errs, err)
					}
				}
			}
			if ep.shutdown != nil {
				ep.shutdown()
			}
		}
		if l.net != nil {
			l.net.Close()
		}
		if l.kn != nil {
			l.kn.Close()
		}
		if l.dns != nil {
			l.dns.Close()
		}
	})
	return errors.Join(errs...)
}
