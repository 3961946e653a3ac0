package explain

import "slices"

// clients attributes each connection to the client (its pool) that opened
// it, read from the timeline: a pool reuses an idle connection before it
// opens one, so a connection opened while another of the same API sat
// idle came from another client; one opened while the others were busy
// grew the pool of the busy ones; one opened after every other had closed
// continues the last one's client when that client reused its
// connections (or the server closed them), else it is a client of its own.
type clients struct {
	// of is each connection's client (from 0), members each client's
	// connections in open order.
	of      []int
	members [][]int
	// idleAt are, for each connection opened while others sat idle,
	// those others.
	idleAt [][]int
}

// clientOf attributes f's connections to clients (see clients).
func (f *facts) clientOf() *clients {
	if f.cl != nil {
		return f.cl
	}
	e := f.e
	cl := &clients{of: make([]int, len(e.Conns)), idleAt: make([][]int, len(e.Conns))}
	order := make([]int, len(e.Conns))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case e.Conns[a].OpenedS < e.Conns[b].OpenedS:
			return -1
		case e.Conns[a].OpenedS > e.Conns[b].OpenedS:
			return 1
		}
		return 0
	})
	newClient := func(ci int) {
		cl.of[ci] = len(cl.members)
		cl.members = append(cl.members, []int{ci})
	}
	replaced := map[int]bool{} // closed after a throttled answer, and replaced
	for k, ci := range order {
		c := e.Conns[ci]
		t := c.OpenedS
		// A connection the SDK closed after a throttled answer is replaced
		// by its own pool (a 503 to a request that waited for 100 Continue
		// leaves the connection unusable): the next one opened after it.
		if j := f.throttleClosed(order[:k], ci, replaced); j >= 0 {
			replaced[j] = true
			g := cl.of[j]
			cl.of[ci] = g
			cl.members[g] = append(cl.members[g], ci)
			continue
		}
		var idle, busy []int
		lastSeen, lastEnd := -1, -1e18
		for _, cj := range order[:k] {
			d := e.Conns[cj]
			if d.API != c.API {
				continue
			}
			if f.lastEnd(cj) > lastEnd && f.lastEnd(cj) <= t+f.tol() {
				lastSeen, lastEnd = cj, f.lastEnd(cj)
			}
			switch {
			case !f.alive(cj, t):
			case d.ALPN == "h2" && t > d.OpenedS+d.HandshakeRTTs*f.rtt+f.tol():
				idle = append(idle, cj) // it would have carried the request beside the others
			case f.busy(cj, t):
				busy = append(busy, cj)
			case f.idleSince(cj, t):
				idle = append(idle, cj)
			}
		}
		switch {
		case len(idle) > 0:
			cl.idleAt[ci] = idle
			newClient(ci)
		case len(busy) > 0:
			// The pool of the busy connection opened last.
			g := cl.of[busy[len(busy)-1]]
			cl.of[ci] = g
			cl.members[g] = append(cl.members[g], ci)
		case lastSeen >= 0 && (f.keys(cl.members[cl.of[lastSeen]]) > len(cl.members[cl.of[lastSeen]]) || e.Conns[lastSeen].ClosedBy != "client"):
			g := cl.of[lastSeen]
			cl.of[ci] = g
			cl.members[g] = append(cl.members[g], ci)
		default:
			newClient(ci)
		}
	}
	f.cl = cl
	return cl
}

// throttleClosed is the connection among before, of ci's API, that the
// client closed after a throttled answer before ci opened and that no
// connection replaced yet (the first closed); -1 for none.
func (f *facts) throttleClosed(before []int, ci int, replaced map[int]bool) int {
	c := f.e.Conns[ci]
	best := -1
	for _, cj := range before {
		d := f.e.Conns[cj]
		if replaced[cj] || d.API != c.API || d.ClosedBy != "client" || len(d.Requests) == 0 ||
			!throttledStatus(d.Requests[len(d.Requests)-1].Status) || d.ClosedS > c.OpenedS+f.tol() {
			continue
		}
		if best < 0 || d.ClosedS < f.e.Conns[best].ClosedS {
			best = cj
		}
	}
	return best
}

// keys counts the objects the connections' requests were about, each
// connection's counted apart: more than one per connection means the
// client reused its connections.
func (f *facts) keys(conns []int) int {
	n := 0
	for _, ci := range conns {
		n += f.connKeys(ci)
	}
	return n
}

// connKeys counts the distinct objects connection ci's requests were
// about (a request about none counts as one when it is the only one).
func (f *facts) connKeys(ci int) int {
	seen := map[string]bool{}
	for _, r := range f.e.Conns[ci].Requests {
		seen[r.Key] = true
	}
	if len(seen) > 1 {
		delete(seen, "")
	}
	return len(seen)
}

// alive says the client held connection ci open at t: opened before, not
// yet closed (a close by the client half a round trip before the server
// saw it).
func (f *facts) alive(ci int, t float64) bool {
	c := f.e.Conns[ci]
	closed := c.ClosedS + f.rtt/2
	if c.ClosedBy == "client" {
		closed = c.ClosedS - f.rtt/2
	}
	return c.OpenedS <= t && closed > t+f.tol()
}

// busy says connection ci was handshaking or had a request in flight
// around t (within the timeline's slack).
func (f *facts) busy(ci int, t float64) bool {
	c := f.e.Conns[ci]
	if t <= c.OpenedS+c.HandshakeRTTs*f.rtt+f.tol() {
		return true
	}
	for _, r := range c.Requests {
		if r.ArrivedS-f.rtt/2-f.tol() <= t && t <= r.DoneS+f.rtt/2+f.tol() {
			return true
		}
	}
	return false
}

// idleSince says connection ci, not busy at t, sat idle around t: its
// last answer came in at least idleMin before t and its next request
// left at least idleMin after. A pool returns a connection a moment after
// the answer, later when the machine is loaded and the client waits for a
// CPU, and hands it to the next request at once; a connection a pool did
// not want stays idle.
func (f *facts) idleSince(ci int, t float64) bool {
	c := f.e.Conns[ci]
	idleMin := 0.03 + 0.5*f.rtt
	for i := len(c.Requests) - 1; i >= 0; i-- {
		if end := c.Requests[i].DoneS + f.rtt/2; end <= t {
			if i+1 < len(c.Requests) && c.Requests[i+1].ArrivedS-f.rtt/2 < t+idleMin {
				return false
			}
			return end <= t-idleMin
		}
	}
	return false
}

// connRoles splits the connections the program stopped using while it
// opened new ones into those of short-lived clients (a client per object)
// and those a pool churned, never both. A connection dropped for a newer
// one of another client is short-lived when its client reused nothing
// (each of its connections carried one object); one dropped for a newer
// one of the same client, and closed as soon as it was done, is churned by
// that client's pool (one left open until the end is an idle member of the
// pool, not dropped), unless nearly
// all the client's dropped ones carried one object (no pool reused them:
// clients made one after the other, each while the others were busy). A
// client of one connection about one object opened while others sat idle
// is short-lived even when nothing replaced it. replacing are the
// connections opened after a churned one was dropped.
func (f *facts) connRoles() (short, churned, replacing []int) {
	cl := f.clientOf()
	e := f.e
	dropped := func(ci int) bool {
		c := e.Conns[ci]
		// One the SDK closed after a throttled answer (a 503 to a request
		// that waited for 100 Continue) is the throttling finding's.
		return len(c.Requests) > 0 && (c.ClosedBy == "client" || c.ClosedBy == "open" || c.ClosedBy == "lab-stopped") &&
			!throttledStatus(c.Requests[len(c.Requests)-1].Status)
	}
	inClient := map[int][]int{} // client: its connections dropped for one of its own
	repl := map[int]map[int]bool{}
	isShort := map[int]bool{}
	for ci, c := range e.Conns {
		k := cl.of[ci]
		m := cl.members[k]
		if len(m) == 1 && len(cl.idleAt[ci]) > 0 && dropped(ci) && f.connKeys(ci) <= 1 {
			isShort[ci] = true
			continue
		}
		if !dropped(ci) {
			continue
		}
		end := f.lastEnd(ci)
		own, other := []int{}, false
		for cj, d := range e.Conns {
			if cj == ci || d.API != c.API || d.OpenedS < end-f.tol() || len(d.Requests) == 0 {
				continue
			}
			if cl.of[cj] == k {
				own = append(own, cj)
			} else {
				other = true
			}
		}
		switch {
		case len(own) > 0 && f.closedSoon(ci):
			// Closed as soon as it was done: dropped on purpose (a pool
			// that cannot keep it, or a client closed after its object),
			// not an idle member of the pool left open until the end.
			inClient[k] = append(inClient[k], ci)
			if repl[k] == nil {
				repl[k] = map[int]bool{}
			}
			for _, cj := range own {
				repl[k][cj] = true
			}
		case other && f.keys(m) <= len(m):
			isShort[ci] = true
		}
	}
	for k, drop := range inClient {
		single := 0
		for _, ci := range drop {
			if f.connKeys(ci) <= 1 {
				single++
			}
		}
		if single*5 >= len(drop)*4 {
			for _, ci := range drop {
				isShort[ci] = true
			}
			continue
		}
		churned = append(churned, drop...)
		for cj := range repl[k] {
			replacing = append(replacing, cj)
		}
	}
	for ci := range isShort {
		short = append(short, ci)
	}
	slices.Sort(short)
	slices.Sort(churned)
	slices.Sort(replacing)
	return short, churned, replacing
}

// closedSoon says the client closed connection ci within a round trip
// and a moment (50 ms: a loaded machine's delay) of its last answer.
func (f *facts) closedSoon(ci int) bool {
	c := f.e.Conns[ci]
	return c.ClosedBy == "client" && c.ClosedS-f.lastEnd(ci) <= 1.5*f.rtt+0.05
}
