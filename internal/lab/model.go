package lab

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
)

// Slow-start model (RFC 5681, RFC 6928): a new connection's sender starts
// with initialWindow segments and doubles its window each round trip until
// the receive window caps it.
const (
	initialWindow = 10
	// responseHeaders is about what the embedded servers put before a body.
	responseHeaders = 400
)

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

// tcpRows are the network's own checks: cold GETs take the round trips of
// slow start, a warm connection fewer, and a long transfer on a long path
// runs at the rate the receive window allows, not the link's.
func (l *Lab) tcpRows(ctx context.Context, api string, urls, direct objectURL, o CheckOptions,
	newTransport func(nettrace.Strategy, bool) *nettrace.Transport) ([]CheckRow, error) {
	rtt := l.link.RTT
	n := l.Network()
	if n.Model == "direct" || rtt <= 0 {
		return nil, nil
	}
	mss := MSS(n.MTU)
	tlsRTTs := 0
	if l.ca != nil {
		tlsRTTs = 1
		if l.cfg.TLSVersion == tls.VersionTLS12 {
			tlsRTTs = 2
		}
	}
	setup := newTransport(nettrace.Pooled, false)
	defer setup.CloseIdleConnections()
	var rows []CheckRow
	var cold4, base4 time.Duration // the cold 4 MiB GET, and what TLS and the machine add to it
	var late4 float64              // the wire's late share during the cold 4 MiB GETs
	total := func(s nettrace.Sample) time.Duration { return s.Total() }
	for _, size := range []int64{1 << 20, 4 << 20} {
		key := fmt.Sprintf("check/cold-%d", size)
		if _, err := exchange(ctx, setup, "PUT", urls.put(key), make([]byte, size), api); err != nil {
			return nil, fmt.Errorf("lab check: upload: %w", err)
		}
		rounds := SlowStartRounds(size+responseHeaders, mss, n.RecvBuffer)
		rtts := float64(1 + tlsRTTs + rounds)
		// The machine's own time for the same request on loopback.
		fresh := newTransport(nettrace.Fresh, false)
		base, err := samples(ctx, 3, func() (nettrace.Sample, error) {
			return exchange(ctx, fresh, "GET", direct.get(key), nil, api)
		})
		if err != nil {
			return nil, err
		}
		meter := l.lateMeter()
		cold, err := samples(ctx, max(o.Samples/2, 3), func() (nettrace.Sample, error) {
			return exchange(ctx, fresh, "GET", urls.get(key), nil, api)
		})
		if err != nil {
			return nil, err
		}
		late := meter.Share()
		fresh.CloseIdleConnections()
		baseline := median(base, total)
		serial := time.Duration(0)
		if bw := l.link.Bandwidth; bw > 0 {
			serial = time.Duration(float64(size*8) / float64(bw) * float64(time.Second))
		}
		want := time.Duration(rtts*float64(rtt)) + baseline + serial
		got := median(cold, total)
		if size == 4<<20 {
			cold4, base4, late4 = got, baseline+time.Duration(tlsRTTs)*rtt, late
		}
		tol := rtt + o.Slack + l.link.Jitter // the model's ±1 round trip
		name := fmt.Sprintf("cold %s GET (slow start: %d rounds)", fmtBytes(size), rounds)
		rows = append(rows, CheckRow{Case: name, Phase: "total", RTTs: rtts, Baseline: baseline, Expected: want,
			Measured: got, Tolerance: tol, Pass: got-want <= tol && want-got <= tol, Late: late})

		// The same GET again on the connection the cold one warmed: its
		// window is open, so it takes fewer round trips (an upper bound).
		pooled := newTransport(nettrace.Pooled, false)
		meter = l.lateMeter()
		warm, err := samples(ctx, 2, func() (nettrace.Sample, error) {
			return exchange(ctx, pooled, "GET", urls.get(key), nil, api)
		})
		late = meter.Share()
		pooled.CloseIdleConnections()
		if err != nil {
			return nil, err
		}
		got = total(warm[1])
		bound := want - rtt
		rows = append(rows, CheckRow{Case: fmt.Sprintf("warm %s GET, same connection", fmtBytes(size)), Phase: "total",
			RTTs: rtts - 1, Baseline: baseline, Expected: bound, Measured: got, Bound: "at most", Pass: got <= bound+o.Slack, Late: late})
	}

	if row, ok, err := l.referenceRow(ctx, cold4, base4, late4, o); err != nil {
		return nil, err
	} else if ok {
		rows = append(rows, row)
	}

	// A long transfer on a warm connection: the receive window, not the
	// link, sets the rate when a window's worth per round trip is below it.
	windowRate := float64(n.RecvBuffer) / rtt.Seconds() // bytes/s
	if bw := l.link.Bandwidth; (bw == 0 || windowRate*8 < float64(bw)*0.8) && rtt >= 10*time.Millisecond && o.WindowSize >= 0 {
		size := o.WindowSize
		if size == 0 {
			size = 64 << 20
		}
		if _, err := exchange(ctx, setup, "PUT", urls.put("check/window"), make([]byte, size), api); err != nil {
			return nil, err
		}
		pooled := newTransport(nettrace.Pooled, false)
		defer pooled.CloseIdleConnections()
		meter := l.lateMeter()
		ss, err := samples(ctx, 2, func() (nettrace.Sample, error) {
			return exchange(ctx, pooled, "GET", urls.get("check/window"), nil, api)
		})
		if err != nil {
			return nil, err
		}
		// The body after its first byte, at the window's rate.
		want := time.Duration(float64(size) / windowRate * float64(time.Second))
		got := ss[1].Phases[nettrace.Recv]
		tol := time.Duration(max(o.Tolerance, 0.15)*float64(want)) + o.Slack
		rows = append(rows, CheckRow{Case: fmt.Sprintf("warm %s GET, receive window %s per round trip (%.0f MB/s)", fmtBytes(size), fmtBytes(int64(n.RecvBuffer)), windowRate/1e6),
			Phase: "recv", Expected: want, Measured: got, Tolerance: tol, Pass: got-want <= tol && want-got <= tol, Late: meter.Share()})
	}
	return rows, nil
}
