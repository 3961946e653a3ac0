package lab

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/lab/server"
)

// ErrNoAzurite says the Azure endpoint cannot be served on this machine.
var ErrNoAzurite = server.ErrNoAzurite

// AzureConnectionString is what an Azure client needs to reach the lab's
// Azure endpoint; empty when it is not served.
func (l *Lab) AzureConnectionString() string {
	ep := l.endpoints["azure"]
	if ep == nil {
		return ""
	}
	return server.AzureConnectionString(l.scheme(), ep.local)
}

// startAzurite runs azurite-blob (server.StartAzurite) on a loopback port,
// behind the link like the other APIs.
func (l *Lab) startAzurite(ctx context.Context, port int) (*endpoint, error) {
	useLink := l.net != nil
	// A proxy in front of Azurite sees each request: to record it, and to
	// apply the server's behaviour (limits, faults).
	proxied := l.rec != nil || l.cfg.Limit.For("azure") != nil
	upPort := port
	if useLink || proxied {
		upPort = 0 // a free port: the public one is the link's or the recording proxy's
	}
	var certPEM, keyPEM []byte
	if l.ca != nil {
		certPEM, keyPEM = l.ca.serverCertPEM, l.ca.serverKeyPEM
	}
	az, err := server.StartAzurite(ctx, upPort, certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	upstream, stopChild := az.Addr, az.Stop
	ep := &endpoint{api: "azure", shutdown: stopChild}
	public := upstream
	if proxied {
		pub, err := l.proxyAzure(ctx, ep, port, upstream, stopChild)
		if err != nil {
			return nil, err
		}
		public = pub
	} else if useLink {
		// Azurite listens on loopback: the server stack's listener carries
		// each connection that crossed the wire on to it.
		pub, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			stopChild()
			return nil, fmt.Errorf("lab azure: %w", portHint(err))
		}
		pubPort := pub.Addr().(*net.TCPAddr).Port
		wire, err := l.net.Listen(pubPort)
		if err != nil {
			pub.Close()
			stopChild()
			return nil, fmt.Errorf("lab azure: %w", err)
		}
		dialAzurite := func(ctx context.Context) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", upstream)
		}
		toAzurite := startForwarder(wire, dialAzurite)
		fromKernel := func() {}
		if l.kn != nil {
			kln, err := l.kn.listen(pubPort)
			if err != nil {
				toAzurite.Close()
				pub.Close()
				stopChild()
				return nil, fmt.Errorf("lab azure: %w", err)
			}
			fromKernel = startForwarder(kln, dialAzurite).Close
			ep.prog = l.scheme() + "://" + net.JoinHostPort(serverAddr.String(), strconv.Itoa(pubPort)) + "/" + server.AzuriteAccount
		}
		ep.fwd = l.forward(pub, pubPort)
		ep.shutdown = func() { fromKernel(); toAzurite.Close(); stopChild() }
		l.wirePorts[pubPort] = true
		public = pub.Addr().String()
		ep.direct = l.scheme() + "://" + upstream + "/" + server.AzuriteAccount
	}
	ep.local = l.scheme() + "://" + public + "/" + server.AzuriteAccount
	if ep.direct == "" {
		ep.direct = ep.local
	}
	pubPort, _ := strconv.Atoi(public[strings.LastIndex(public, ":")+1:])
	ep.url = l.publicURL("azure", pubPort, l.scheme()+"://"+public) + "/" + server.AzuriteAccount
	return ep, nil
}

// proxyAzure puts a reverse proxy in front of Azurite at upstream, with
// the server's behaviour and, when the lab records, its recorder: on the
// server stack behind a local endpoint at port when the link emulates,
// else on 127.0.0.1:port. It returns the public address and sets ep's
// teardown (the proxy, then stopChild).
func (l *Lab) proxyAzure(ctx context.Context, ep *endpoint, port int, upstream string, stopChild func()) (string, error) {
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
		ep.prog = l.scheme() + "://" + net.JoinHostPort(serverAddr.String(), strconv.Itoa(pubPort)) + "/" + server.AzuriteAccount
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
		ep.direct = l.scheme() + "://" + upstream + "/" + server.AzuriteAccount
	}
	target := &url.URL{Scheme: l.scheme(), Host: upstream}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = discardLog
	tr := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second}
	if l.ca != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: l.ca.pool, MinVersion: tls.VersionTLS12}
	}
	proxy.Transport = tr
	b := &server.Behaviour{API: "azure", ServiceTime: l.cfg.ServiceTime, Faults: l.cfg.Faults, Counts: &l.Counts, Stop: l.stop, Limiter: l.limiter("azure")}
	srv := &http.Server{Handler: b.Wrap(proxy), ReadHeaderTimeout: time.Minute, IdleTimeout: l.cfg.IdleTimeout, ErrorLog: discardLog}
	if l.rec != nil {
		srv.Handler, srv.ConnState, srv.ConnContext = l.rec.Wrap(srv.Handler), l.rec.ConnState, l.rec.ConnContext
	}
	lns := []net.Listener{ln}
	if kln != nil {
		lns = append(lns, kln)
	}
	if l.ca != nil {
		srv.TLSConfig = l.ca.serverConfig(l.cfg.TLSVersion)
	}
	done := make(chan error, len(lns))
	for _, ln := range lns {
		tlsConfig := srv.TLSConfig
		if l.rec != nil {
			ln = l.rec.Listener("azure", ln)
			if tlsConfig != nil {
				tlsConfig = l.rec.TLSConfig(tlsConfig)
			}
		}
		if l.ca != nil {
			ln = tls.NewListener(ln, tlsConfig)
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
