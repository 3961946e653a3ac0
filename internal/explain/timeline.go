package explain

import (
	"math"
	"sort"

	"github.com/objbench/objbench/internal/document"
)

// node is one step of a program's storage traffic as the client saw it: a
// connection's handshake (req -1) or a request. A request is in flight at
// the client from half a round trip before it reached the server until
// half a round trip after its answer left.
type node struct {
	conn, req  int // index in Explain.Conns and in its Requests; req -1: the handshake
	start, end float64
	// rtts are the round trips in its duration that another RTT changes:
	// the handshake's, or a request's exchange (1) and its 100-continue wait.
	rtts float64
	deps []dep
}

// dep says a node could start only gap seconds after node on ended
// (gap: the program's own time in between, as recorded).
type dep struct {
	on  int
	gap float64
}

// graph is the recorded timeline as a dependency graph: which step could
// start only after which. A request depends on the step before it on its
// connection (HTTP/1.1 carries one at a time; an h2 request only on the
// handshake), and every step on the step that ended last before it
// started: the same thread of requests, a program waiting for its
// requests, a barrier between phases. The gaps are the program's own work,
// kept when the graph is re-timed.
type graph struct {
	e     *document.Explain
	rtt   float64
	nodes []node // by start time
	// tail is the program's time after the last step ended.
	tail float64
	// hs is each connection's handshake node.
	hs []int
}

// newGraph builds the graph of an explanation's timeline.
func newGraph(e *document.Explain) *graph {
	g := &graph{e: e, rtt: e.RTTms / 1000, hs: make([]int, len(e.Conns))}
	for ci, c := range e.Conns {
		g.nodes = append(g.nodes, node{conn: ci, req: -1, start: c.OpenedS, end: c.OpenedS + c.HandshakeRTTs*g.rtt, rtts: c.HandshakeRTTs})
		for ri, r := range c.Requests {
			n := node{conn: ci, req: ri, start: r.ArrivedS - g.rtt/2, end: r.DoneS + g.rtt/2, rtts: 1 + r.RoundTrips["wait100"]}
			n.end = max(n.end, n.start)
			g.nodes = append(g.nodes, n)
		}
	}
	sort.SliceStable(g.nodes, func(i, j int) bool { return g.nodes[i].start < g.nodes[j].start })
	// The nodes by end time, for "the step that ended last before".
	byEnd := make([]int, len(g.nodes))
	for i := range byEnd {
		byEnd[i] = i
	}
	sort.SliceStable(byEnd, func(i, j int) bool { return g.nodes[byEnd[i]].end < g.nodes[byEnd[j]].end })
	last := make([]int, len(e.Conns)) // the last node seen on each connection
	for i := range last {
		last[i] = -1
	}
	maxEnd := 0.0
	for k := range g.nodes {
		n := &g.nodes[k]
		maxEnd = max(maxEnd, n.end)
		if n.req < 0 {
			g.hs[n.conn] = k
		}
		// The connection only orders: the program's own time is on the
		// dependency below (a connection idle while the program waited for
		// another is not the program's work).
		if p := last[n.conn]; p >= 0 && n.req >= 0 {
			if e.Conns[n.conn].ALPN == "h2" {
				p = g.hs[n.conn]
			}
			n.deps = append(n.deps, dep{p, min(n.start-g.nodes[p].end, 0)})
		}
		last[n.conn] = k
		// The step that ended last at or before this one's start, and those
		// that ended with it (within the slack: a request and the
		// background one beside it, either of which the program waited for).
		i := sort.Search(len(byEnd), func(i int) bool { return g.nodes[byEnd[i]].end > n.start+1e-9 }) - 1
		latest := math.Inf(-1)
		for ; i >= 0; i-- {
			p := byEnd[i]
			if p == k || g.nodes[p].start >= n.start {
				continue
			}
			if g.nodes[p].end < latest-g.slack() {
				break
			}
			latest = max(latest, g.nodes[p].end)
			n.deps = append(n.deps, dep{p, n.start - g.nodes[p].end})
		}
	}
	g.tail = e.WallS - maxEnd
	return g
}

// fix changes the graph's steps: a node's duration (given its re-timed
// start) and the gap before it (given when what it waited for ended). Nil
// funcs keep the recorded ones.
type fix struct {
	dur func(k int, start float64) float64
	gap func(k int, d dep, after float64) float64
	// done is told each node's re-timed times, in order.
	done func(k int, start, end float64)
}

// retime is the program's wall time with f applied: each step starts when
// the last of what it waited for ended plus the recorded gap, in recorded
// order (a topological one: what a step waited for started before it).
// With no fix it is the recorded wall time.
func (g *graph) retime(f fix) float64 {
	start := make([]float64, len(g.nodes))
	end := make([]float64, len(g.nodes))
	last := 0.0
	for k, n := range g.nodes {
		s := n.start
		if len(n.deps) > 0 {
			s = -1e18
			for _, d := range n.deps {
				gap := d.gap
				if f.gap != nil {
					gap = f.gap(k, d, end[d.on])
				}
				s = max(s, end[d.on]+gap)
			}
		}
		dur := n.end - n.start
		if f.dur != nil {
			dur = max(f.dur(k, s), 0)
		}
		start[k], end[k] = s, s+dur
		if f.done != nil {
			f.done(k, s, s+dur)
		}
		last = max(last, end[k])
	}
	if len(g.nodes) == 0 {
		return g.e.WallS
	}
	return last + g.tail
}

// slack is how close two ends are to count as one: the lab's clock and
// the client's scheduling.
func (g *graph) slack() float64 { return 0.002 + 0.05*g.rtt }

// request is node k's request (nil for a handshake).
func (g *graph) request(k int) *document.ExplainRequest {
	n := g.nodes[k]
	if n.req < 0 {
		return nil
	}
	return &g.e.Conns[n.conn].Requests[n.req]
}
