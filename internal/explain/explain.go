package explain

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/timeline"
)

// Phases are the round-trip phases, in the order of `strategies`.
var Phases = nettrace.PhaseNames()

// Input is what a program did, as the lab recorded it.
type Input struct {
	Program  []string
	ExitCode int
	// Conns are the lab's records; Start and End bound the program's run.
	Conns      []timeline.Conn
	Start, End time.Time
	// RTT is the link's round trip; 0 leaves every round-trip count at 0.
	RTT time.Duration
	// MSS and RecvBuffer feed the slow-start model of a cold connection's
	// first response (0: measured server time only).
	MSS, RecvBuffer int
	// HTTP2Offered says the endpoints offered h2 (TLS, ALPN).
	HTTP2Offered bool
	// IdleTimeout is the servers' keep-alive timeout.
	IdleTimeout time.Duration
}

// interval is a stretch of the client's time, seconds since Start.
type interval struct{ from, to float64 }

// extraHeader names the header a request carries that an SDK adds on its
// own (checksums, digests); "" for others.
func extraHeader(name string, values []string) string {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "x-amz-checksum-"), n == "x-amz-sdk-checksum-algorithm", n == "x-amz-trailer",
		n == "content-md5", n == "x-goog-hash", n == "x-ms-content-crc64", n == "x-ms-blob-content-md5",
		n == "x-amz-decoded-content-length":
		return n
	case n == "content-encoding" && slices.ContainsFunc(values, func(v string) bool { return strings.Contains(v, "aws-chunked") }):
		return "content-encoding: aws-chunked"
	}
	return ""
}

// Analyze explains a record: every figure of document.Explain but the cost
// (Price adds it) and the findings (Findings adds them).
func Analyze(in Input) document.Explain {
	e := document.Explain{Program: in.Program, ExitCode: in.ExitCode, RTTms: ms(in.RTT),
		WallS: in.End.Sub(in.Start).Seconds(), ExtraHeaders: map[string]int{}, Operations: map[string]int{},
		Protocols: map[string]int{}, RoundTripsByPhase: map[string]float64{}, Conns: []document.ExplainConn{}}
	rtt := in.RTT.Seconds()
	at := func(t time.Time) float64 {
		if t.IsZero() {
			return 0
		}
		return t.Sub(in.Start).Seconds()
	}
	rtts := func(d float64) float64 {
		if rtt <= 0 || d <= 0 {
			return 0
		}
		return d / rtt
	}
	conns := slices.Clone(in.Conns)
	sort.SliceStable(conns, func(i, j int) bool { return conns[i].Accepted.Before(conns[j].Accepted) })
	var busy, flights, opens, srvFlights, srvOpens []interval
	var all []*document.ExplainRequest // for the expected misses
	for _, c := range conns {
		if len(c.Requests) == 0 && c.Handshake.IsZero() && c.BytesIn == 0 {
			continue // a probe that said nothing (a port check)
		}
		ec := document.ExplainConn{ID: c.ID, API: c.API, TLSVersion: c.TLSVersion, ALPN: c.ALPN,
			ClosedBy: c.ClosedBy, BytesIn: c.BytesIn, BytesOut: c.BytesOut, Requests: []document.ExplainRequest{}}
		ec.OpenedS = at(c.Accepted) - 1.5*rtt
		if c.Closed.IsZero() {
			ec.ClosedS = at(in.End)
		} else {
			ec.ClosedS = at(c.Closed)
		}
		tlsRTTs := 0.0
		hsEnd := at(c.Accepted) - 0.5*rtt
		if c.TLSVersion != "" {
			e.TLSHandshakes++
			tlsRTTs = rtts(c.Handshake.Sub(c.Hello).Seconds())
			hsEnd = at(c.Handshake) + 0.5*rtt
			if c.TLSVersion != "1.3" {
				tlsRTTs++ // the server's Finished goes back before the request can leave
				hsEnd += 0.5 * rtt
			}
		}
		connectRTTs := 0.0
		if rtt > 0 {
			connectRTTs = 1
		}
		ec.HandshakeRTTs = connectRTTs + tlsRTTs
		busy = append(busy, interval{ec.OpenedS, hsEnd})
		// The client closed it half a round trip before the server saw it
		// end; it learns of a close by the server half a round trip after.
		clientClosed := ec.ClosedS + 0.5*rtt
		if c.ClosedBy == "client" {
			clientClosed = ec.ClosedS - 0.5*rtt
		}
		opens = append(opens, interval{ec.OpenedS, max(clientClosed, ec.OpenedS)})
		srvOpens = append(srvOpens, interval{at(c.Accepted), ec.ClosedS})
		proto := c.ALPN
		if proto == "" {
			proto = "http/1.1"
			if len(c.Requests) > 0 && c.Requests[0].Proto == "HTTP/2.0" {
				proto = "h2"
			}
		}
		e.Protocols[proto]++
		prevEnd := at(c.Handshake)
		if c.Handshake.IsZero() {
			prevEnd = at(c.Accepted)
		}
		first := true
		for i, q := range c.Requests {
			op := Operation(c.API, q.Method, q.Path, q.Query, q.Header, q.Status)
			if q.Inferred {
				// Read without keys: no method, path or status. Each is
				// counted as an object's request, as most of a storage
				// program's are, so the rules about objects still apply.
				op = Op{Name: "Inferred", Object: true}
			}
			r := document.ExplainRequest{ID: fmt.Sprintf("%d.%d", c.ID, i+1), Method: q.Method, Path: q.Path, Operation: op.Name, Object: op.Object && (q.Inferred || q.Status < 400 && q.Status > 0),
				Status: q.Status, BytesIn: q.BytesIn, BytesOut: q.BytesOut, ArrivedS: at(q.Arrived), FirstByteS: at(q.FirstByte),
				DoneS: at(q.Done), ExpectContinue: q.Expect, RoundTrips: map[string]float64{}, Inferred: q.Inferred, RequestID: q.RequestID,
				Key: objectKey(c.API, q.Path, q.Query), Range: rangeOf(q.Header, q.Query), Invocation: invocation(q.Header)}
			if ec.Library == "" {
				ec.Library = library(q.Header)
			}
			if q.Done.IsZero() {
				r.DoneS = at(in.End)
			}
			if r.FirstByteS == 0 {
				r.FirstByteS = r.DoneS
			}
			gap := r.ArrivedS - prevEnd
			if i > 0 {
				gap -= rtt
			}
			r.IdleBeforeS = max(gap, 0)
			prevEnd = max(prevEnd, r.DoneS)
			for k, v := range q.Header {
				if x := extraHeader(k, v); x != "" {
					r.Headers = append(r.Headers, x)
					e.ExtraHeaders[x]++
				}
			}
			sort.Strings(r.Headers)
			if q.Expect {
				e.ExpectContinue++
				r.Headers = append([]string{"expect: 100-continue"}, r.Headers...)
			}
			// The client's round trips, from the server's times.
			body := 0.0
			if !q.BodyDone.IsZero() && q.BytesIn > 0 {
				body = q.BodyDone.Sub(q.Arrived).Seconds()
			}
			rt := r.RoundTrips
			if first {
				rt["connect"], rt["tls"] = connectRTTs, tlsRTTs
			}
			if q.Expect && q.BytesIn > 0 && rtt > 0 && body >= 0.75*rtt {
				rt["wait100"] = 1
			}
			rt["send"] = max(rtts(body)-rt["wait100"], 0)
			respFrom := max(r.ArrivedS, at(q.BodyDone))
			if rtt > 0 {
				rt["wait"] = 1 + rtts(r.FirstByteS-respFrom)
			}
			recv := rtts(r.DoneS - r.FirstByteS)
			extra := 0.0
			if first && in.MSS > 0 && rtt > 0 && q.BytesOut > 0 {
				extra = float64(lab.SlowStartRounds(q.BytesOut+400, in.MSS, max(in.RecvBuffer, in.MSS))-1) - recv
				extra = max(extra, 0)
				recv += extra
			}
			rt["recv"] = recv
			for _, p := range Phases {
				if rt[p] == 0 {
					delete(rt, p)
				}
			}
			busy = append(busy, interval{r.ArrivedS - 0.5*rtt, r.DoneS + 0.5*rtt + extra*rtt})
			// In flight at the client, less a slack at its end for the lab's
			// clock: a request cannot leave before the one before it on
			// its connection was answered.
			flights = append(flights, interval{r.ArrivedS - 0.5*rtt, max(r.DoneS+0.5*rtt-flightSlack(rtt), r.ArrivedS)})
			srvFlights = append(srvFlights, interval{r.ArrivedS, r.DoneS})
			e.Requests++
			e.Operations[op.Name]++
			if r.Object {
				e.Objects++
			}
			e.BytesUp += q.BytesIn
			e.BytesDown += q.BytesOut
			for p, v := range rt {
				e.RoundTripsByPhase[p] += v
			}
			ec.Requests = append(ec.Requests, r)
			first = false
		}
		e.Conns = append(e.Conns, ec)
	}
	for i := range e.Conns {
		for j := range e.Conns[i].Requests {
			all = append(all, &e.Conns[i].Requests[j])
		}
	}
	e.ExpectedMisses = expectedMisses(all)
	for _, r := range all {
		// A request inferred from TLS records (no keys) has no status to judge.
		if (r.Status >= 400 || r.Status == 0) && !r.Inferred {
			e.Errors++
		}
	}
	e.Errors -= e.ExpectedMisses
	e.Connections = len(e.Conns)
	e.StorageS = union(busy, 0, e.WallS)
	e.NotStorageS = max(e.WallS-e.StorageS, 0)
	e.MaxInFlight, e.MaxOpenConns = peak(flights), peak(opens)
	e.ServerMaxInFlight, e.ServerMaxOpenConns = peak(srvFlights), peak(srvOpens)
	if e.Objects > 0 {
		n := float64(e.Objects)
		e.RequestsPerObject = float64(e.Requests) / n
		e.ConnectionsPerObject = float64(e.Connections) / n
		e.TLSHandshakesPerObject = float64(e.TLSHandshakes) / n
		for p, v := range e.RoundTripsByPhase {
			e.RoundTripsByPhase[p] = v / n
			e.RoundTripsPerObject += v / n
		}
	}
	return e
}

// flightSlack is how much of the end of a request's time in flight at the
// client is not counted as overlapping the next: 1 ms and 5% of the RTT.
func flightSlack(rtt float64) float64 { return 0.001 + 0.05*rtt }

// union is the length of the union of intervals, clipped to [lo, hi].
func union(iv []interval, lo, hi float64) float64 {
	s := slices.Clone(iv)
	sort.Slice(s, func(i, j int) bool { return s[i].from < s[j].from })
	total, curFrom, curTo := 0.0, 0.0, 0.0
	started := false
	for _, x := range s {
		from, to := max(x.from, lo), min(x.to, hi)
		if to <= from {
			continue
		}
		if !started || from > curTo {
			if started {
				total += curTo - curFrom
			}
			curFrom, curTo, started = from, to, true
			continue
		}
		curTo = max(curTo, to)
	}
	if started {
		total += curTo - curFrom
	}
	return total
}

// peak is the most intervals open at once.
func peak(iv []interval) int {
	type ev struct {
		t float64
		d int
	}
	var evs []ev
	for _, x := range iv {
		evs = append(evs, ev{x.from, 1}, ev{x.to, -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].d < evs[j].d // an end before a start at the same time
	})
	n, best := 0, 0
	for _, e := range evs {
		n += e.d
		best = max(best, n)
	}
	return best
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
