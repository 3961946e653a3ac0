package explain

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// ParallelWorkers is the N of the "N in parallel" scenario: the examples'
// and the SDK transfer managers' default.
const ParallelWorkers = 10

// minSequential is the fewest object requests in a run that the parallel
// scenario and the sequential finding take up.
const minSequential = 4

// otherRTTs are the round trips the what-if re-times the program at, with
// the profile each is (one equal to the recorded RTT is left out).
var otherRTTs = []struct {
	ms      float64
	profile string
}{{2, "same-region"}, {80, "cross-region"}}

// WhatIf re-times the recorded program under each fix that applies: one
// kept client, no 100-continue, N in parallel, HTTP/2, one request per
// small upload, and other round-trip times. Each scenario's saving is the
// recorded wall time less the predicted one.
func WhatIf(e *document.Explain) []document.WhatIf {
	if e.Requests == 0 {
		return nil
	}
	g := newGraph(e)
	var out []document.WhatIf
	add := func(id, text string, wall float64) {
		out = append(out, document.WhatIf{ID: id, Text: text, WallS: wall, SaveS: e.WallS - wall})
	}
	if e.Connections > 1 {
		add("reuse", "one client kept for the whole program, its pool as large as the requests in flight: a connection is opened only when none is idle, "+
			"and a new client's set-up (the program's time before each new connection) and its repeated set-up requests go", g.reuse(nil))
	}
	if g.waited100(nil) > 0 {
		add("no-expect", "no Expect: 100-continue: the body leaves with the headers, one round trip less per upload that waited", g.noExpect(nil))
	}
	if runs := g.sequentialRuns(); len(runs) > 0 {
		add(fmt.Sprintf("parallel-%d", ParallelWorkers), fmt.Sprintf("%d requests in parallel where the program sent them one at a time "+
			"(a connection each, a handshake per new one; the program's own time between requests kept, the least of it, its CPU per request, one thread at a time)", ParallelWorkers),
			g.parallel(runs, ParallelWorkers))
	}
	if g.h1Conns() > 0 {
		add("http2", "HTTP/2: one connection per endpoint carries every request at once (GCS offers it; the lab does for all)", g.http2())
	}
	if len(g.initRequests()) > 0 {
		add("single-request-upload", "one request per small upload: no initiation or completion request", g.singleRequest())
	}
	if t := throttles(e); t.retried > 0 {
		add("no-throttling", "the store not throttling (keys spread over enough prefixes, or a lower rate): no throttled answer, no backoff; each retried request starts when its first attempt did", g.unthrottled(t))
	}
	// Each finding about requests the program need not send: the program
	// without them.
	for _, f := range e.Findings {
		name, ok := strings.CutPrefix(f.ID, "explain-")
		if !ok || !dropFindings[f.ID] || len(f.Requests) == 0 {
			continue
		}
		drop := map[string]bool{}
		for _, id := range f.Requests {
			drop[id] = true
		}
		add("without-"+name, fmt.Sprintf("without the %d requests of finding %s", len(drop), f.ID), g.dropRequests(drop))
	}
	for _, o := range otherRTTs {
		if math.Abs(o.ms-e.RTTms) < 0.5 {
			continue
		}
		add(fmt.Sprintf("rtt-%gms", o.ms), fmt.Sprintf("a round trip of %g ms (%s) instead of %g ms: handshakes and exchanges re-timed, the server's and the program's time kept",
			o.ms, o.profile, e.RTTms), g.atRTT(o.ms/1000))
	}
	return out
}

// dropFindings are the findings priced by dropping their requests: each
// gets a scenario without-NAME (NAME the id less "explain-").
var dropFindings = map[string]bool{
	"explain-redundant-head": true, "explain-head-after-list": true, "explain-list-per-object": true, "explain-get-after-put": true,
	"explain-reread": true, "explain-bucket-per-object": true, "explain-tiny-ranges": true,
}

// scenario finds a what-if by id.
func scenario(w []document.WhatIf, id string) (document.WhatIf, bool) {
	for _, s := range w {
		if s.ID == id {
			return s, true
		}
	}
	return document.WhatIf{}, false
}

// reuse re-times the program with one kept client: each connection's
// handshake goes when a connection of the same API is idle at its
// re-timed start (the pool grows only with the requests in flight). A
// connection whose handshake goes loses the program's time before it (a
// new client's set-up: the gap before a handshake is the program building
// a client) down to the program's usual gap before a request on a kept
// connection, and its repeats of set-up requests (the same operation on the
// same path as before: GCS's GetBucket per client) go too. only, when not
// nil, limits the change to those connections (indexes).
func (g *graph) reuse(only map[int]bool) float64 {
	type vconn struct {
		api  string
		busy float64
	}
	var pool []*vconn
	of := make([]*vconn, len(g.e.Conns))
	dropped := make([]bool, len(g.e.Conns))
	keptGap := g.keptGap()
	seen := map[string]bool{}
	free := func(api string, at float64) *vconn {
		for _, v := range pool {
			if v.api == api && v.busy <= at+1e-9 {
				return v
			}
		}
		return nil
	}
	return g.retime(fix{
		gap: func(k int, d dep, after float64) float64 {
			// The gap before a handshake that goes is the program's usual one.
			if n := g.nodes[k]; n.req < 0 && (only == nil || only[n.conn]) && free(g.e.Conns[n.conn].API, after+d.gap) != nil {
				return min(d.gap, keptGap)
			}
			return d.gap
		},
		dur: func(k int, start float64) float64 {
			n := g.nodes[k]
			c := g.e.Conns[n.conn]
			if n.req < 0 {
				if only == nil || only[n.conn] {
					if v := free(c.API, start); v != nil {
						of[n.conn], dropped[n.conn] = v, true
						v.busy = math.Inf(1)
						return 0
					}
				}
				v := &vconn{api: c.API, busy: math.Inf(1)}
				if len(c.Requests) == 0 { // a connection opened and never used
					v.busy = start + n.end - n.start
				}
				pool = append(pool, v)
				of[n.conn] = v
				return n.end - n.start
			}
			r := c.Requests[n.req]
			key := r.Operation + " " + r.Path
			repeat := !r.Object && seen[key]
			seen[key] = true
			if dropped[n.conn] && repeat {
				return 0
			}
			return n.end - n.start
		},
		done: func(k int, _, end float64) {
			if n := g.nodes[k]; n.req >= 0 && of[n.conn] != nil {
				of[n.conn].busy = end
			}
		},
	})
}

// keptGap is the program's usual own time before a request on a kept
// connection: the median gap before requests that were not the first on
// theirs (0 when every request had a connection of its own).
func (g *graph) keptGap() float64 {
	var gaps []float64
	for _, n := range g.nodes {
		if n.req > 0 {
			for _, d := range n.deps {
				if g.nodes[d.on].conn == n.conn {
					gaps = append(gaps, max(d.gap, 0))
				}
			}
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	sort.Float64s(gaps)
	return gaps[len(gaps)/2]
}

// waited100 counts the requests that held their body for 100 Continue
// (among only, when not nil).
func (g *graph) waited100(only map[string]bool) int {
	n := 0
	for k := range g.nodes {
		if r := g.request(k); r != nil && r.RoundTrips["wait100"] > 0 && (only == nil || only[r.ID]) {
			n++
		}
	}
	return n
}

// noExpect re-times the program with no 100-continue wait.
func (g *graph) noExpect(only map[string]bool) float64 {
	return g.retime(fix{dur: func(k int, _ float64) float64 {
		n := g.nodes[k]
		d := n.end - n.start
		if r := g.request(k); r != nil && (only == nil || only[r.ID]) {
			d -= r.RoundTrips["wait100"] * g.rtt
		}
		return d
	}})
}

// atRTT re-times the program at another round-trip time.
func (g *graph) atRTT(rtt float64) float64 {
	return g.retime(fix{dur: func(k int, _ float64) float64 {
		n := g.nodes[k]
		return n.end - n.start + (rtt-g.rtt)*n.rtts
	}})
}

// h1Conns counts the HTTP/1.1 connections beyond the first of their API.
func (g *graph) h1Conns() int {
	seen := map[string]bool{}
	n := 0
	for _, c := range g.e.Conns {
		if c.ALPN == "h2" {
			continue
		}
		if seen[c.API] {
			n++
		}
		seen[c.API] = true
	}
	return n
}

// http2 re-times the program with one connection per API: every
// handshake but the first of each API goes.
func (g *graph) http2() float64 {
	seen := map[string]bool{}
	return g.retime(fix{dur: func(k int, _ float64) float64 {
		n := g.nodes[k]
		if n.req < 0 {
			api := g.e.Conns[n.conn].API
			if seen[api] {
				return 0
			}
			seen[api] = true
		}
		return n.end - n.start
	}})
}

// initRequests are the requests a small upload would not need: the
// initiation and completion of resumable and multipart uploads when the
// uploads average below smallObject.
func (g *graph) initRequests() map[string]bool {
	out := map[string]bool{}
	inits := g.e.Operations["ResumableInitiate"] + g.e.Operations["CreateMultipartUpload"]
	if inits == 0 || g.e.BytesUp/int64(inits) >= smallObject {
		return out
	}
	for _, c := range g.e.Conns {
		for _, r := range c.Requests {
			switch r.Operation {
			case "ResumableInitiate", "CreateMultipartUpload", "CompleteMultipartUpload":
				out[r.ID] = true
			}
		}
	}
	return out
}

// singleRequest re-times the program with one request per small upload.
func (g *graph) singleRequest() float64 {
	drop := g.initRequests()
	return g.retime(fix{dur: func(k int, _ float64) float64 {
		if r := g.request(k); r != nil && drop[r.ID] {
			return 0
		}
		return g.nodes[k].end - g.nodes[k].start
	}})
}

// run is a stretch of the timeline where the client had one step in
// flight at a time: nodes first..last (in start order), each starting after
// the one before ended.
type run struct {
	first, last int
	objects     int
}

// sequentialRuns are the runs with at least minSequential object requests:
// a run of requests each waiting for the one before.
func (g *graph) sequentialRuns() []run {
	var out []run
	flush := func(r run) {
		if r.objects >= minSequential {
			out = append(out, r)
		}
	}
	cur := run{first: -1}
	reach := math.Inf(-1) // the latest end so far
	tol := 1e-3 + 0.05*g.rtt
	retry := throttles(g.e).isRetry // a retry waited for its backoff, not the request before
	for k, n := range g.nodes {
		if cur.first >= 0 && n.start < reach-tol {
			// Overlaps what came before: the run (without the overlapped
			// node) ends.
			cur.last = k - 1
			if r := g.request(cur.last); r != nil && r.Object && !retry(r.ID) {
				cur.objects--
			}
			flush(cur)
			cur = run{first: -1}
		}
		if cur.first < 0 {
			cur = run{first: k}
		}
		cur.last = k
		if r := g.request(k); r != nil && r.Object && !retry(r.ID) {
			cur.objects++
		}
		reach = max(reach, n.end)
	}
	if cur.first >= 0 {
		flush(cur)
	}
	return out
}

// parallel re-times each sequential run with n requests in flight: the
// run's object requests go to n workers in order, each with a connection
// of its own (a handshake for each beyond the first); other requests (set
// up, lists) and a change from uploads to downloads wait for all before
// them. The program's own time before each request (the recorded gap) is
// kept: its least over the run, the CPU a request needs, runs one thread at
// a time, as in Python (the GIL) or Node.js; the rest overlaps. The run's
// recorded span is replaced by the schedule's; the rest of the program
// moves with it.
func (g *graph) parallel(runs []run, n int) float64 {
	wall := g.e.WallS
	hsDur := 0.0
	for _, c := range g.e.Conns {
		hsDur = max(hsDur, c.HandshakeRTTs*g.rtt)
	}
	for _, r := range runs {
		span := g.nodes[r.last].end - g.nodes[r.first].start
		wall -= span - g.schedule(r, n, hsDur)
	}
	return wall
}

// schedule is the length of run r on n workers (see parallel).
func (g *graph) schedule(r run, n int, hsDur float64) float64 {
	free := make([]float64, n)
	hasConn := make([]bool, n)
	cpu := 0.0
	kind := ""
	barrier := func() {
		m := 0.0
		for _, f := range free {
			m = max(m, f)
		}
		for i := range free {
			free[i] = m
		}
		cpu = max(cpu, m)
	}
	// The program's own time before each object request (a handshake's
	// included), but the run's first.
	cpuGap, unitGap, units := math.Inf(1), 0.0, 0
	for k := r.first + 1; k <= r.last; k++ {
		unitGap += max(g.nodes[k].start-g.nodes[k-1].end, 0)
		if q := g.request(k); q != nil {
			if q.Object && units > 0 {
				cpuGap = min(cpuGap, unitGap)
			}
			units++
			unitGap = 0
		}
	}
	if math.IsInf(cpuGap, 1) {
		cpuGap = 0
	}
	lastKey, lastW := "", -1 // the object the last request was about, and its worker
	pendingHS := 0.0         // a handshake of the run waiting for its request
	pendingGap := 0.0        // and the program's time before it
	// place puts request k on a worker (its unit's, or the first free)
	// after gap of the program's time and returns the worker.
	place := func(k int, gap, dur float64, unit bool) int {
		w := lastW
		if !unit {
			w = 0
			for i := range free {
				if free[i] < free[w] {
					w = i
				}
			}
		}
		// The least of the run's gaps is the CPU every request needs, run
		// one thread at a time; the rest (waits: the scheduler, I/O) overlaps.
		cs := max(free[w], cpu)
		if unit {
			// After its unit's request on the same worker: the program's
			// CPU clock, which keeps the order of new work, does not wait.
			cs = free[w]
		} else {
			cpu = cs + min(gap, cpuGap)
		}
		t := cs + gap
		switch {
		case pendingHS > 0:
			t += pendingHS
		case !hasConn[w] && (w != 0 || k == r.first):
			t += hsDur // a new connection of its own
		}
		// Otherwise worker 0 goes on with the connection the run was using.
		hasConn[w] = true
		pendingHS = 0
		free[w] = t + dur
		return w
	}
	prevEnd := g.nodes[r.first].start
	for k := r.first; k <= r.last; k++ {
		nd := g.nodes[k]
		gap := max(nd.start-prevEnd, 0)
		prevEnd = nd.end
		dur := nd.end - nd.start
		req := g.request(k)
		if req == nil {
			pendingHS += dur
			pendingGap += gap
			continue
		}
		gap += pendingGap
		pendingGap = 0
		// A request about the object the one before was about (a HEAD
		// and its GET, a PUT and the GET that reads it back) goes after it
		// on its worker: one unit of work, which no phase barrier splits.
		unit := req.Key != "" && req.Key == lastKey && lastW >= 0
		if !req.Object && req.Key != "" && k < r.last {
			// A request about one object before its transfer (a HEAD): it
			// goes with the transfer, on the worker the transfer will take.
			lastKey, lastW = req.Key, place(k, gap, dur, unit)
			continue
		}
		if !req.Object {
			barrier()
			free[0] += pendingHS + gap + dur
			hasConn[0] = hasConn[0] || pendingHS > 0 || k > r.first
			pendingHS = 0
			barrier()
			lastKey, lastW = "", -1
			continue
		}
		if c := opClass(req.Method); c != kind && !unit {
			if kind != "" {
				barrier()
			}
			kind = c
		}
		lastKey, lastW = req.Key, place(k, gap, dur, unit)
	}
	barrier()
	return free[0]
}

func opClass(method string) string {
	switch method {
	case "PUT", "POST":
		return "up"
	case "GET":
		return "down"
	}
	return "other"
}
