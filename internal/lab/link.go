package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab/netem"
)

// Link is the emulated path between client and server, as the profiles and
// flags give it: the round trip (half each way), its jitter, the bottleneck's
// rate each way, loss each way (random or bursty), and reordering and
// duplication each way.
type Link struct {
	RTT       time.Duration
	Jitter    time.Duration
	Bandwidth int64   // bits per second, 0 = unlimited
	Loss      float64 // probability each way, 0-1
	// Bursty is loss in bursts (netem's gemodel), instead of Loss.
	Bursty netem.GilbertElliott
	// Reorder sends a share of packets ahead of the delay (netem's reorder).
	Reorder netem.Reorder
	// Duplicate is the probability each way that a packet is sent twice.
	Duplicate float64
}

// Emulates reports whether the link adds anything to a direct connection.
func (l Link) Emulates() bool {
	return l.RTT > 0 || l.Jitter > 0 || l.Bandwidth > 0 || l.Loss > 0 || l.Impaired()
}

// Impaired says whether the link has bursty loss, reordering or duplication.
func (l Link) Impaired() bool { return l.Bursty.On() || l.Reorder.Share > 0 || l.Duplicate > 0 }

// LossModel is the bursty loss as tc writes it ("gemodel 0.3% 30% 100%
// 0%"), "" for none.
func (l Link) LossModel() string {
	g := l.Bursty
	if !g.On() {
		return ""
	}
	return fmt.Sprintf("gemodel %g%% %g%% %g%% %g%%", 100*g.P, 100*g.R, 100*g.BadLoss, 100*g.GoodLoss)
}

// Impairments are the reordering and duplication as tc writes them
// ("reorder 25% 50%, duplicate 1%"), "" for none.
func (l Link) Impairments() string {
	var s []string
	if r := l.Reorder; r.Share > 0 {
		s = append(s, fmt.Sprintf("reorder %g%%", 100*r.Share))
		if r.Correlation > 0 {
			s[0] += fmt.Sprintf(" %g%%", 100*r.Correlation)
		}
	}
	if l.Duplicate > 0 {
		s = append(s, fmt.Sprintf("duplicate %g%%", 100*l.Duplicate))
	}
	return strings.Join(s, ", ")
}

// NetworkInfo describes the network that carries the lab's connections.
type NetworkInfo struct {
	// Model is "netstack" (user-space TCP/IP stacks across an emulated
	// wire), "netns" (as netstack for objbench's own client, and a program
	// run by Exec in a namespace of its own, its kernel's TCP on the same
	// kind of wire to the servers' namespace) or "direct" (loopback,
	// nothing emulated).
	Model string
	// Queue is the bottleneck's drop-tail queue each way, in bytes (0 without a rate).
	Queue int
	// MTU of the wire (0 on the direct path).
	MTU int
	// RecvBuffer and SendBuffer are the TCP buffers' autotuning limits.
	RecvBuffer, SendBuffer int
}

const defaultMTU = 1500

func checkNetwork(cfg Config) error {
	switch {
	case cfg.MTU != 0 && netem.CheckMTU(cfg.MTU) != nil:
		return fmt.Errorf("lab network: MTU %w", netem.CheckMTU(cfg.MTU))
	case cfg.Queue < 0:
		return fmt.Errorf("lab network: queue must be positive")
	case cfg.RecvBuffer < 0 || cfg.SendBuffer < 0 || cfg.RecvBuffer > 1<<30 || cfg.SendBuffer > 1<<30:
		return fmt.Errorf("lab network: TCP buffers must be from 4 KiB to 1 GiB")
	case cfg.RecvBuffer > 0 && cfg.RecvBuffer < 4096 || cfg.SendBuffer > 0 && cfg.SendBuffer < 4096:
		return fmt.Errorf("lab network: TCP buffers must be from 4 KiB to 1 GiB")
	case cfg.DNSTime < 0 || cfg.DNSTime > 10*time.Second || cfg.DNSTTL < 0:
		return fmt.Errorf("lab resolver: lookup time must be from 0 to 10s and TTL not negative")
	}
	return nil
}

func (l *Lab) buffers() netem.Buffers {
	b := netem.LinuxBuffers
	if l.cfg.RecvBuffer > 0 {
		b.RecvMax = l.cfg.RecvBuffer
		b.RecvDefault = min(b.RecvDefault, b.RecvMax)
	}
	if l.cfg.SendBuffer > 0 {
		b.SendMax = l.cfg.SendBuffer
		b.SendDefault = min(b.SendDefault, b.SendMax)
	}
	return b
}

// netemConfig turns the link into the wire: half the round trip and half
// the jitter each way; the rate, queue, loss, reordering and duplication
// each way.
func (l *Lab) netemConfig() netem.Config {
	p := l.cfg.path(l.link)
	mtu := l.cfg.MTU
	if mtu == 0 {
		mtu = defaultMTU
	}
	// The server is a cloud front end: its send buffer is not what limits a
	// download (the client's receive window is), so it gets room for the
	// largest window the client may open.
	server := l.buffers()
	server.SendMax = max(server.SendMax, 4*server.RecvMax)
	return netem.Config{Up: p, Down: p, MTU: mtu, Client: l.buffers(), Server: server, Exact: l.cfg.ExactWire}
}

// path is one direction of the wire over link: half its round trip and
// jitter, its rate, loss, reordering and duplication, and cfg's queue.
func (cfg Config) path(link Link) netem.Path {
	return netem.Path{Delay: link.RTT / 2, Jitter: link.Jitter / 2, Rate: link.Bandwidth, Queue: cfg.Queue, Loss: link.Loss,
		Bursty: link.Bursty, Reorder: link.Reorder, Duplicate: link.Duplicate}
}

// Wire is the emulated wire alone that cfg asks for (its profile's link
// with the settings that override it), without the lab's servers or
// stacks: explain --real adds it on top of a real path.
func (cfg Config) Wire() (netem.Config, error) {
	prof, err := LookupProfile(cfg.Profile)
	if err != nil {
		return netem.Config{}, err
	}
	p := cfg.path(cfg.link(prof))
	return netem.Config{Up: p, Down: p, MTU: cfg.MTU}, nil
}

// Network describes the network in use.
func (l *Lab) Network() NetworkInfo {
	if l.net == nil {
		return NetworkInfo{Model: "direct"}
	}
	c := l.net.Config()
	b := l.buffers()
	model := NetworkNetstack
	if l.kn != nil {
		model = NetworkNetns
	}
	return NetworkInfo{Model: model, Queue: c.Down.Queue, MTU: c.MTU, RecvBuffer: b.RecvMax, SendBuffer: b.SendMax}
}

// Slow-start model (RFC 5681, RFC 6928): a new connection's sender starts
// with initialWindow segments and doubles its window each round trip until
// the receive window caps it.
const initialWindow = 10

// MSS is the TCP payload per packet for an MTU: IPv4 and TCP headers with
// the timestamp option take 52 bytes.
func MSS(mtu int) int { return mtu - 52 }

// SlowStartRounds is the number of round trips a fresh sender needs to
// deliver n bytes with segments of mss bytes, its window starting at 10
// segments, doubling per round trip, at most rwnd bytes.
func SlowStartRounds(n int64, mss, rwnd int) int {
	w, sent, rounds := int64(initialWindow*mss), int64(0), 0
	for sent < n {
		sent += min(w, int64(rwnd))
		w *= 2
		rounds++
	}
	return rounds
}

// lossModelInfo is the document's record of bursty loss; nil for none.
func lossModelInfo(g netem.GilbertElliott) *document.LossModel {
	if !g.On() {
		return nil
	}
	return &document.LossModel{Model: "gemodel", P: g.P, R: g.R, BadLoss: g.BadLoss, GoodLoss: g.GoodLoss, MeanLoss: g.MeanLoss()}
}

// reorderInfo is the document's record of reordering; nil for none.
func reorderInfo(r netem.Reorder) *document.Reorder {
	if r.Share == 0 {
		return nil
	}
	return &document.Reorder{Share: r.Share, Correlation: r.Correlation}
}
