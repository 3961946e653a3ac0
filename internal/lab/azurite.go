package lab

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Azurite's well-known development account. Its key is public, printed in
// Microsoft's documentation; it guards nothing but a local emulator.
const (
	azuriteAccount = "devstoreaccount1"
	azuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// ErrNoAzurite says the Azure endpoint cannot be served on this machine.
var ErrNoAzurite = errors.New("the lab's Azure endpoint needs Azurite: install it with 'npm install -g azurite' so that azurite-blob is on PATH")

// AzureConnectionString is what an Azure client needs to reach the lab's
// Azure endpoint; empty when it is not served.
func (l *Lab) AzureConnectionString() string {
	ep := l.endpoints["azure"]
	if ep == nil {
		return ""
	}
	return l.azureConnectionString(ep.local)
}

func (l *Lab) azureConnectionString(blobEndpoint string) string {
	return fmt.Sprintf("DefaultEndpointsProtocol=%s;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;",
		l.scheme(), azuriteAccount, azuriteKey, blobEndpoint)
}

// startAzurite runs azurite-blob as a child process on a loopback port with
// a temporary folder, behind the link like the other APIs.
func (l *Lab) startAzurite(ctx context.Context, port int) (*endpoint, error) {
	bin, err := exec.LookPath("azurite-blob")
	if err != nil {
		return nil, ErrNoAzurite
	}
	dir, err := os.MkdirTemp("", "objbench-azurite-")
	if err != nil {
		return nil, fmt.Errorf("lab azure: %w", err)
	}
	useLink := l.net != nil
	upPort := port
	if useLink || port == 0 || l.rec != nil {
		if upPort, err = freePort(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("lab azure: %w", err)
		}
	}
	args := []string{"--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(upPort), "--location", dir,
		"--disableTelemetry", "--skipApiVersionCheck", "--loose", "--silent"}
	if l.ca != nil {
		cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
		if err := os.WriteFile(cert, l.ca.serverCertPEM, 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if err := os.WriteFile(key, l.ca.serverKeyPEM, 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		args = append(args, "--cert", cert, "--key", key)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("lab azure: start azurite-blob: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopChild := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		os.RemoveAll(dir)
	}
	upstream := "127.0.0.1:" + strconv.Itoa(upPort)
	if err := waitPort(ctx, upstream, exited, 60*time.Second); err != nil {
		stopChild()
		return nil, fmt.Errorf("lab azure: azurite-blob did not start: %w: %s", err, strings.TrimSpace(out.String()))
	}
	ep := &endpoint{api: "azure", shutdown: stopChild}
	public := upstream
	if l.rec != nil {
		// Recording: an HTTP proxy in front of Azurite sees each request.
		pub, err := l.recordAzure(ctx, ep, port, upstream, stopChild)
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
			ep.prog = l.scheme() + "://" + net.JoinHostPort(serverAddr.String(), strconv.Itoa(pubPort)) + "/" + azuriteAccount
		}
		ep.fwd = l.forward(pub, pubPort)
		ep.shutdown = func() { fromKernel(); toAzurite.Close(); stopChild() }
		l.wirePorts[pubPort] = true
		public = pub.Addr().String()
		ep.direct = l.scheme() + "://" + upstream + "/" + azuriteAccount
	}
	ep.local = l.scheme() + "://" + public + "/" + azuriteAccount
	if ep.direct == "" {
		ep.direct = ep.local
	}
	pubPort, _ := strconv.Atoi(public[strings.LastIndex(public, ":")+1:])
	ep.url = l.publicURL("azure", pubPort, l.scheme()+"://"+public) + "/" + azuriteAccount
	return ep, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitPort waits until addr accepts connections, the child exits, or the bound passes.
func waitPort(ctx context.Context, addr string, exited <-chan struct{}, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("it exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("no answer on %s within %s", addr, bound)
}

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
	srv := &http.Server{Handler: l.rec.Wrap(b.wrap(proxy)), ReadHeaderTimeout: time.Minute, IdleTimeout: l.cfg.IdleTimeout,
		ErrorLog: discardLog, ConnState: l.rec.ConnState, ConnContext: l.rec.ConnContext}
	lns := []net.Listener{ln}
	if kln != nil {
		lns = append(lns, kln)
	}
	if l.ca != nil {
		srv.TLSConfig = l.ca.serverConfig(l.cfg.TLSVersion)
	}
	done := make(chan error, len(lns))
	for _, ln := range lns {
		ln = l.rec.Listener("azure", ln)
		if l.ca != nil {
			ln = tls.NewListener(ln, l.rec.TLSConfig(srv.TLSConfig))
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
