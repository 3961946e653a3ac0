package lab

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/lab/server"
)

// OwnExchangeTime is what a twin takes out of each service draw: its own
// time per exchange, measured when it started (0 for other labs).
func (l *Lab) OwnExchangeTime() time.Duration { return time.Duration(l.own.Load()) }

// ownExchangeTime is the time a warm exchange with the lab's api
// endpoint takes beyond the link's round trip and a known service time:
// the machine's own cost (stacks, timers, TLS records, HTTP), which a real
// path does not have. A twin's drawn service times lose it, so that its
// warm first bytes are the measured bucket's (its new connections still
// pay the machine's own connect time on top of the measured round trip).
func (l *Lab) ownExchangeTime(ctx context.Context, api string) (time.Duration, error) {
	tr := l.pingTransport()
	defer tr.CloseIdleConnections()
	url := l.Endpoint(api) + server.PingPath
	const n, warm = 22, 2 // the first exchanges open the connection
	waits := make([]time.Duration, 0, n-warm)
	for i := range n {
		w, err := ping(ctx, tr, url)
		if err != nil {
			return 0, fmt.Errorf("lab: measure its own time per exchange: %w", err)
		}
		if i >= warm {
			waits = append(waits, w)
		}
	}
	return max(0, trimmedMean(waits)-l.link.RTT-server.PingHold), nil
}

// pingTransport is a pooled HTTP/1.1 transport into the lab, as objbench's
// own client's: through Dial, with the lab's names and CA.
func (l *Lab) pingTransport() *http.Transport {
	tlsCfg := l.ClientTLS()
	if tlsCfg == nil {
		tlsCfg = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tlsCfg.NextProtos = []string{"http/1.1"}
	dial := l.Dial
	if r := l.Resolver(); r != nil {
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			ips, err := r.LookupHost(ctx, host)
			if err != nil {
				return nil, err
			}
			return l.Dial(ctx, network, net.JoinHostPort(ips[0], port))
		}
	}
	return &http.Transport{Proxy: nil, DialContext: dial, TLSClientConfig: tlsCfg, DisableCompression: true,
		ResponseHeaderTimeout: 30 * time.Second}
}

// ping is one GET of url: the wait from the request written to the
// response's first byte.
func ping(ctx context.Context, tr *http.Transport, url string) (time.Duration, error) {
	var wrote, first time.Time
	trace := &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Now() },
		GotFirstResponseByte: func() { first = time.Now() },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.StatusCode >= 300 {
		return 0, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return max(0, first.Sub(wrote)), nil
}

// trimmedMean is the mean of waits without their slowest tenth (a burst
// of another process's work on the machine). The mean, not a quantile: a
// twin's first byte is a draw from the profile plus this own time, and
// the median of such a sum, the draw being much the wider, moves by the
// own time's mean. Measured on a twin at 20 ms (HTTP/1.1, TLS): the own
// time was 1.5 ms at its lower quartile (what was taken out before),
// 1.9 ms at its median and 3.3 ms at its 90th percentile, the same for
// GET, HEAD, LIST, PUT and DELETE on one warm connection or four, and
// the twin's first bytes came out 1.0-1.7 ms late. Most of it was Go's
// timers, three per exchange (the request's packets, the service time,
// the response's), each up to 1 ms late: on netem.Sleep's timer the own
// time is 0.3-0.7 ms (TestTwinTakesItsOwnTimeOut, TestTwinEndToEnd).
func trimmedMean(waits []time.Duration) time.Duration {
	slices.Sort(waits)
	keep := waits[:len(waits)-len(waits)/10]
	var sum time.Duration
	for _, w := range keep {
		sum += w
	}
	return sum / time.Duration(len(keep))
}
