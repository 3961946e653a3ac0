package explain

import (
	"fmt"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/timeline"
)

// wireFindings are the findings only the wire can make: what happens
// before and around the requests that a lab's server never sees (the
// program's name lookups, TLS session resumption). Throttling is the same
// finding on both sources (throttleRule). conns are the timeline (the
// server's side), e the explanation they gave.
func wireFindings(e *document.Explain, conns []timeline.Conn) []document.Finding {
	var out []document.Finding
	if f, ok := dnsPerObject(e, conns); ok {
		out = append(out, f)
	}
	if f, ok := noResumption(e, conns); ok {
		out = append(out, f)
	}
	return out
}

// dnsPerObject: a name lookup before most connections, and a connection
// for most objects: the program asks the resolver again and again.
func dnsPerObject(e *document.Explain, conns []timeline.Conn) (document.Finding, bool) {
	var looked []int
	var shown []string
	var times []time.Duration
	for _, c := range conns {
		if c.DNS != nil && !c.DNS.Answer.IsZero() {
			looked = append(looked, c.ID)
			shown = append(shown, fmt.Sprintf("conn %d", c.ID))
			times = append(times, c.DNS.Answer.Sub(c.DNS.Query))
		}
	}
	if e.Objects < 4 || 2*len(looked) < e.Objects {
		return document.Finding{}, false
	}
	slices.Sort(times)
	var sum time.Duration
	for _, d := range times {
		sum += d
	}
	med := times[len(times)/2]
	return document.Finding{ID: "explain-dns-per-object", Severity: "warn", Text: fmt.Sprintf(
		"%d name lookups for %d objects (%.1f ms each at the median, %.2f s in all): each new connection asked the resolver again. "+
			"Keep one client and its connections, or let it cache the lookup.", len(looked), e.Objects, ms(med), sum.Seconds()),
		Evidence: map[string]float64{"lookups": float64(len(looked)), "objects": float64(e.Objects), "lookup_ms": ms(med), "total_s": sum.Seconds()},
		Conns:    looked,
		Confidence: &document.Confidence{Level: "high", Shown: shown, FalseIf: "the lookups ran beside other requests rather than before each connection's first",
			Priced: false}}, true
}

// noResumption: several TLS 1.2 connections to the same server, each a
// full handshake though the server offered session tickets: resuming
// saves a round trip a connection.
func noResumption(e *document.Explain, conns []timeline.Conn) (document.Finding, bool) {
	var full []int
	var shown []string
	for _, c := range conns {
		if c.TLSVersion == "1.2" && c.Resumed == "" && c.TicketOffered {
			full = append(full, c.ID)
			shown = append(shown, fmt.Sprintf("conn %d", c.ID))
		}
	}
	if len(full) < 3 {
		return document.Finding{}, false
	}
	return document.Finding{ID: "explain-no-tls-resumption", Severity: "info", Text: fmt.Sprintf(
		"%d TLS 1.2 connections made full handshakes though the server offered session tickets: a client that resumes its sessions "+
			"(one TLS configuration kept across connections) saves a round trip on each (%.0f ms at this RTT).", len(full), e.RTTms),
		Evidence: map[string]float64{"full_handshakes": float64(len(full))}, Conns: full,
		Confidence: &document.Confidence{Level: "high", Shown: shown, FalseIf: "the server refuses resumption (its tickets are not accepted back)", Priced: false}}, true
}
