package explain

import (
	"fmt"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/document"
)

// nagleBody is the largest body a Nagle stall is looked for on: one that
// fits the initial window, so nothing but the socket holds it back.
const nagleBody = 8 << 10

// NagleStall finds requests whose small body reached the server about one
// round trip (up to a delayed-ACK timer more) after their headers, on an
// HTTP/1.1 connection with nothing else in flight (at least half of those
// that had nothing else in flight): the program wrote
// headers and body in two writes with Nagle's algorithm on, so the body
// waited for the ACK of the headers. Only a program whose own TCP is on the
// wire (the lab's netns path) can show it. ok is false when none did.
func NagleStall(in Input) (f document.Finding, ok bool) {
	if in.RTT <= 0 {
		return f, false
	}
	var gaps []time.Duration
	uploads, eligible := 0, 0
	for _, c := range in.Conns {
		if c.ALPN == "h2" {
			continue
		}
		for i, r := range c.Requests {
			if r.ContentLength <= 0 || r.ContentLength > nagleBody || r.Expect || r.BodyDone.IsZero() {
				continue
			}
			uploads++
			if i > 0 && c.Requests[i-1].Done.After(r.Arrived) {
				continue // another request in flight
			}
			eligible++
			if gap := r.BodyDone.Sub(r.Arrived); stalled(gap, in.RTT) {
				gaps = append(gaps, gap)
			}
		}
	}
	// Nagle holds back every such body: a stall on a few of them is the
	// client's scheduling on a loaded machine, not the socket.
	if len(gaps) == 0 || 2*len(gaps) < eligible {
		return f, false
	}
	slices.Sort(gaps)
	var sum time.Duration
	for _, g := range gaps {
		sum += g
	}
	med := gaps[len(gaps)/2]
	rtt := in.RTT.Seconds()
	return document.Finding{ID: "explain-nagle-stall", Severity: "warn", Text: fmt.Sprintf(
		"%d of %d small uploads had their body reach the server %.0f ms (%.1f round trips) after their headers, on a connection with nothing else in flight: "+
			"the program writes headers and body in two writes with Nagle's algorithm on (no TCP_NODELAY), so the body waits for the ACK of the headers "+
			"(and the server's delayed ACK). Set TCP_NODELAY on the socket, or write headers and body in one write: saves about %.2f s (%.0f ms a request) at this RTT.",
		len(gaps), uploads, ms(med), med.Seconds()/rtt, sum.Seconds(), ms(sum)/float64(len(gaps))),
		Evidence: map[string]float64{"stalled": float64(len(gaps)), "uploads": float64(uploads), "gap_ms": ms(med), "save_s": sum.Seconds()},
	}, true
}

// stalled says whether a body that came gap after its headers waited for
// an ACK: at least most of a round trip, at most a round trip and Linux's
// longest delayed-ACK timer (200 ms) with some slack.
func stalled(gap, rtt time.Duration) bool {
	return gap >= rtt*7/10 && gap <= rtt+250*time.Millisecond
}
