package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// Link is the emulated network between client and server: a toxiproxy TCP
// proxy with latency (half the round trip each way, with jitter) and a
// bandwidth cap each way. The TCP handshake's round trip cannot be emulated
// by a proxy that accepts locally, so clients add it in their dialer
// (nettrace.Config.HandshakeDelay, see HandshakeDelay).
type Link struct {
	RTT       time.Duration
	Jitter    time.Duration
	Bandwidth int64 // bits per second, 0 = unlimited
}

// Emulates reports whether the link adds anything to a direct connection.
func (l Link) Emulates() bool { return l.RTT > 0 || l.Jitter > 0 || l.Bandwidth > 0 }

// preciseLatency is toxiproxy's latency toxic with microsecond resolution,
// so that sub-millisecond profiles (same-zone: 0.25 ms each way) are real.
type preciseLatency struct {
	LatencyUS int64 `json:"latency_us"`
	JitterUS  int64 `json:"jitter_us"`
}

func (t *preciseLatency) GetBufferSize() int { return 1024 }

func (t *preciseLatency) delay() time.Duration {
	d := t.LatencyUS
	if t.JitterUS > 0 {
		d += rand.Int64N(2*t.JitterUS+1) - t.JitterUS
	}
	return time.Duration(max(d, 0)) * time.Microsecond
}

// Pipe delays every chunk by the one-way latency measured from when it
// arrived, so chunks pipeline as on a real link.
func (t *preciseLatency) Pipe(stub *toxics.ToxicStub) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			if sleep := t.delay() - time.Since(c.Timestamp); sleep > 0 {
				tm := time.NewTimer(sleep)
				select {
				case <-tm.C:
				case <-stub.Interrupt:
					tm.Stop()
					stub.Output <- c
					return
				}
			}
			stub.Output <- c
		}
	}
}

var registerOnce sync.Once

func registerToxics() {
	registerOnce.Do(func() { toxics.Register("objbench_latency", new(preciseLatency)) })
}

// proxy is one running toxiproxy proxy.
type proxy struct {
	p *toxiproxy.Proxy
}

// startProxy listens on listen (host:port, port 0 for any) and forwards to
// upstream through the link's toxics.
func startProxy(name, listen, upstream string, link Link) (*proxy, error) {
	registerToxics()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, name, listen, upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("link %s: listen on %s: %w", name, listen, err)
	}
	add := func(typ, stream string, attrs any) error {
		body, _ := json.Marshal(map[string]any{"name": typ + "_" + stream, "type": typ, "stream": stream, "toxicity": 1.0, "attributes": attrs})
		_, err := p.Toxics.AddToxicJson(bytes.NewReader(body))
		return err
	}
	for _, stream := range []string{"upstream", "downstream"} {
		if link.RTT > 0 || link.Jitter > 0 {
			half := link.RTT / 2
			if err := add("objbench_latency", stream, preciseLatency{LatencyUS: half.Microseconds(), JitterUS: (link.Jitter / 2).Microseconds()}); err != nil {
				p.Stop()
				return nil, fmt.Errorf("link %s: latency: %w", name, err)
			}
		}
		if link.Bandwidth > 0 {
			// toxiproxy's rate is in KB/s of 1000 bytes.
			rate := max(link.Bandwidth/8/1000, 1)
			if err := add("bandwidth", stream, map[string]int64{"rate": rate}); err != nil {
				p.Stop()
				return nil, fmt.Errorf("link %s: bandwidth: %w", name, err)
			}
		}
	}
	return &proxy{p: p}, nil
}

// Addr is the proxy's listening address.
func (p *proxy) Addr() string { return p.p.Listen }

// Close stops the proxy and its connections.
func (p *proxy) Close() { p.p.Stop() }
