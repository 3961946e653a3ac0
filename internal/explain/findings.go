package explain

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/units"
)

// smallObject is the size below which one request beats a resumable or
// multipart upload (every SDK's single-request threshold is above it).
const smallObject = 8 << 20

// facts are what the rules read: the explanation, what the document does
// not keep (in), and the timeline's dependency graph, whose re-timing
// gives every finding's saving.
type facts struct {
	e   *document.Explain
	in  Input
	g   *graph
	rtt float64
	// hs is the handshake round trips of a new connection, on average.
	hs float64
	// cl is the connections' clients (clientOf).
	cl *clients
	// thr is the run's throttling (throttles), read by several rules.
	thr *throttling
}

// rule turns the facts into findings, none when its pattern is absent. A
// new rule is one function (in a file of its own if it likes) and one line
// in rules.
type rule func(*facts) []document.Finding

// rules run in this order; findings are then ranked by severity, then by
// saving, stably.
var rules = []rule{
	droppedConnsRule,
	idleConnsRule,
	multiRequestUploadRule,
	expectRule,
	sequentialRule,
	http2Rule,
	idleTimeoutRule,
	errorsRule,
	throttleRule,
	checksumRule,
	notStorageRule,
	redundantRules,
}

// falseIf says, for the findings whose rule does not, what would make
// each false.
var falseIf = map[string]string{
	"explain-multi-request-upload": "the objects are larger than the average says (a few large ones beside small ones)",
	"explain-expect-continue":      "the server refuses many uploads (then the header saves their bodies)",
	"explain-sequential":           "each request needs the answer of the one before (a read-modify-write chain)",
	"explain-http2":                "the program's HTTP stack cannot speak HTTP/2 (Python's requests, urllib3)",
	"explain-idle-timeout":         "the server closed the connections for another reason (a restart)",
	"explain-errors":               "the failures were expected by the program (a check answered 404 before a create it did not make)",
	"explain-checksum-headers":     "the headers were set by the program itself",
	"explain-not-storage":          "the program's time away from storage is its purpose (computing on what it read)",
}

// Findings are the ranked sentences of an explanation: what the program
// did that cost round trips, read from patterns in its timeline, each
// naming the connections and requests it is about, what to change, and
// what it would save at this RTT (from the what-if model). in supplies
// what the document does not keep (the idle timeout, whether h2 was
// offered).
func Findings(e *document.Explain, in Input) []document.Finding {
	if e.Requests == 0 {
		return nil
	}
	f := &facts{e: e, in: in, g: newGraph(e), rtt: e.RTTms / 1000, thr: throttles(e)}
	for _, c := range e.Conns {
		f.hs += c.HandshakeRTTs / float64(len(e.Conns))
	}
	for ci, k := range f.clientOf().of {
		e.Conns[ci].Client = k + 1
	}
	var out []document.Finding
	for _, r := range rules {
		for _, fd := range r(f) {
			if fd.Confidence == nil {
				_, priced := fd.Evidence["save_s"]
				fd = f.confident(fd, false, falseIf[fd.ID], priced)
			}
			out = append(out, fd)
		}
	}
	rank := map[string]int{"high": 0, "warn": 1, "info": 2}
	slices.SortStableFunc(out, func(a, b document.Finding) int {
		if c := cmp.Compare(rank[a.Severity], rank[b.Severity]); c != 0 {
			return c
		}
		return cmp.Compare(b.Evidence["save_s"], a.Evidence["save_s"])
	})
	return out
}

// finding is a finding about the connections (indexes into e.Conns) and
// requests (ids) named.
func (f *facts) finding(id, sev, text string, ev map[string]float64, conns []int, reqs []string) document.Finding {
	var ids []int
	for _, ci := range conns {
		ids = append(ids, f.e.Conns[ci].ID)
	}
	for k, v := range ev {
		ev[k] = document.Finite(v)
	}
	return document.Finding{ID: id, Severity: sev, Text: text, Evidence: ev, Conns: ids, Requests: reqs}
}

// lastEnd is when connection ci's last request ended, at the client.
func (f *facts) lastEnd(ci int) float64 {
	c := f.e.Conns[ci]
	if len(c.Requests) == 0 {
		return c.OpenedS + c.HandshakeRTTs*f.rtt
	}
	return c.Requests[len(c.Requests)-1].DoneS + f.rtt/2
}

// tol is the slack of "after" and "idle" in the timeline: the lab's
// clock and the client's scheduling.
func (f *facts) tol() float64 { return 0.002 + 0.25*f.rtt }

// droppedConnsRule: connections the program stopped using while it
// opened new ones of the same API, judged by the client that opened each
// (see clients): short-lived clients (a new client per object, the naive
// program of docs/clients.md) or a pool that closes what it cannot keep idle. A
// connection is one or the other, never both.
func droppedConnsRule(f *facts) []document.Finding {
	short, churned, replacing := f.connRoles()
	var out []document.Finding
	if len(short) >= 2 && f.rtt > 0 {
		only := map[int]bool{}
		var reqs []string
		for _, ci := range short {
			only[ci] = true
			for _, r := range f.e.Conns[ci].Requests {
				reqs = append(reqs, r.ID)
			}
			// And the connection that replaced it: its handshake goes too.
			for cj, d := range f.e.Conns {
				if d.API == f.e.Conns[ci].API && d.OpenedS >= f.lastEnd(ci)-f.tol() && f.clientOf().of[cj] != f.clientOf().of[ci] {
					only[cj] = true
				}
			}
		}
		save := f.e.WallS - f.g.reuse(only)
		ev := map[string]float64{"connections": float64(len(short)), "handshake_rtts": f.hs, "save_s": save}
		fd := f.finding("explain-client-per-object", "high", fmt.Sprintf(
			"%d connections (%s) each carried one object's requests and were dropped while the program went on opening new ones: a new client per object does this; "+
				"each new connection costs %.0f round trips (%.0f ms) before its request can leave. "+
				"Create one client and reuse it for every object (%s): saves about %.2f s at this RTT (what-if: one kept client).",
			len(short), connIDs(f.e, short), f.hs, f.hs*f.rtt*1000, f.advice("client", short), save), ev, short, reqs)
		out = append(out, f.confident(fd, len(short) < 3,
			"the program made one client and its pool closed each connection after one request (then the pool's settings are the fix)", true))
	}
	if len(churned) >= 2 && f.rtt > 0 {
		only := map[int]bool{}
		var reqs []string
		for _, ci := range replacing {
			only[ci] = true
		}
		for _, ci := range churned {
			for _, r := range f.e.Conns[ci].Requests {
				reqs = append(reqs, r.ID)
			}
		}
		save := f.e.WallS - f.g.reuse(only)
		ev := map[string]float64{"connections": float64(len(churned)), "handshake_rtts": f.hs, "save_s": save}
		fd := f.finding("explain-pool-churn", "warn", fmt.Sprintf(
			"%d connections (%s) were dropped after a few requests while the same client opened new ones: a connection pool that closes what it cannot keep idle, "+
				"smaller than the requests in flight. Keep as many idle connections as requests in flight (%s): "+
				"saves about %.2f s at this RTT (what-if: one kept client).", len(churned), connIDs(f.e, churned), f.advice("pool", churned), save), ev, churned, reqs)
		out = append(out, f.confident(fd, len(churned) < 3,
			"the new connections came from another client (then they would have been opened while this pool's sat idle)", true))
	}
	return out
}

// idleConnsRule: connections opened while another client's connection of
// the same API sat idle and was used again later: two clients (or pools)
// where one would do. Connections of short-lived clients are the client
// per object finding's.
func idleConnsRule(f *facts) []document.Finding {
	cl := f.clientOf()
	short, _, _ := f.connRoles()
	skip := map[int]bool{}
	if len(short) >= 2 {
		for _, ci := range short {
			skip[ci] = true
		}
	}
	var opened, idle []int
	for ci, c := range f.e.Conns {
		if skip[ci] {
			continue
		}
		for _, cj := range cl.idleAt[ci] {
			// Used again later: a request that left after c opened.
			d := f.e.Conns[cj]
			if !slices.ContainsFunc(d.Requests, func(r document.ExplainRequest) bool { return r.ArrivedS-f.rtt/2 > c.OpenedS+f.tol() }) {
				continue
			}
			if !slices.Contains(opened, ci) {
				opened = append(opened, ci)
			}
			if !slices.Contains(idle, cj) {
				idle = append(idle, cj)
			}
		}
	}
	if len(opened) == 0 || f.rtt <= 0 {
		return nil
	}
	only := map[int]bool{}
	for _, ci := range opened {
		only[ci] = true
	}
	save := f.e.WallS - f.g.reuse(only)
	sort.Ints(idle)
	fd := f.finding("explain-idle-conns", "warn", fmt.Sprintf(
		"%d connections (%s) were opened while others (%s) sat idle and were used again later: the program holds two clients or pools where one would do, "+
			"and pays a handshake (%.0f round trips) for each new connection. Share one client (%s): saves about %.2f s at this RTT (what-if: one kept client).",
		len(opened), connIDs(f.e, opened), connIDs(f.e, idle), f.hs, f.advice("client", opened), save),
		map[string]float64{"connections": float64(len(opened)), "idle": float64(len(idle)), "save_s": save}, append(opened, idle...), nil)
	return []document.Finding{f.confident(fd, len(opened) < 2,
		"the program needed two separate clients (other credentials, another endpoint)", true)}
}

// multiRequestUploadRule: small uploads in several requests (resumable,
// multipart).
func multiRequestUploadRule(f *facts) []document.Finding {
	drop := f.g.initRequests()
	if len(drop) == 0 || f.rtt <= 0 {
		return nil
	}
	init := f.e.Operations["ResumableInitiate"] + f.e.Operations["CreateMultipartUpload"]
	save := f.e.WallS - f.g.singleRequest()
	ids := sortedIDs(drop)
	return []document.Finding{f.finding("explain-multi-request-upload", "warn", fmt.Sprintf(
		"%d uploads averaging %s began with a separate request (%s): a small object needs one request. "+
			"Upload it in one request (%s): "+
			"saves %d requests and about %.2f s at this RTT.",
		init, sizeText(f.e.BytesUp/int64(init)), opsText(f.e.Operations, "ResumableInitiate", "CreateMultipartUpload", "UploadPart", "ResumableChunk"),
		f.advice("multipart", f.connsOfRequests(ids)), len(drop), save), map[string]float64{"uploads": float64(init), "extra_requests": float64(len(drop)), "save_s": save}, nil, ids)}
}

// largeExpectBody is the body from which waiting for 100 Continue is
// worth its round trip: a transfer manager's parts (5 to 8 MiB) take
// many round trips to send, and the server may refuse them.
const largeExpectBody = 1 << 20

// expectRule: Expect: 100-continue, and the small uploads that waited for
// it (large ones are what the header is for).
func expectRule(f *facts) []document.Finding {
	if f.e.ExpectContinue == 0 {
		return nil
	}
	waited := map[string]bool{}
	large := 0
	for _, c := range f.e.Conns {
		for _, r := range c.Requests {
			switch {
			case r.RoundTrips["wait100"] <= 0:
			case r.BytesIn >= largeExpectBody:
				large++
			default:
				waited[r.ID] = true
			}
		}
	}
	if len(waited) == 0 && large > 0 {
		return nil // the header's purpose: not sending a large body the server would refuse
	}
	text := fmt.Sprintf("%d requests were sent with Expect: 100-continue", f.e.ExpectContinue)
	if len(waited) == 0 || f.rtt <= 0 {
		return []document.Finding{f.finding("explain-expect-continue", "info", text+", but sent the body at once: the header costs nothing here.",
			map[string]float64{"expect": float64(f.e.ExpectContinue)}, nil, nil)}
	}
	save := f.e.WallS - f.g.noExpect(waited)
	return []document.Finding{f.finding("explain-expect-continue", "warn", text+fmt.Sprintf(
		"; %d of them held their body back for the server's 100 Continue, one round trip each. "+
			"Turn the header off for small uploads (it only saves sending a body the server would refuse): saves about %.2f s at this RTT (what-if: no 100-continue).",
		len(waited), save), map[string]float64{"expect": float64(f.e.ExpectContinue), "waited": float64(len(waited)), "save_s": save}, nil, sortedIDs(waited))}
}

// sequentialRule: runs of requests each waiting for the one before.
func sequentialRule(f *facts) []document.Finding {
	runs := f.g.sequentialRuns()
	if len(runs) == 0 || f.rtt <= 0 {
		return nil
	}
	var reqs []string
	conns := map[int]bool{}
	objects := 0
	span := 0.0
	for _, r := range runs {
		objects += r.objects
		span += f.g.nodes[r.last].end - f.g.nodes[r.first].start
		for k := r.first; k <= r.last; k++ {
			if q := f.g.request(k); q != nil {
				reqs = append(reqs, q.ID)
				conns[f.g.nodes[k].conn] = true
			}
		}
	}
	save := f.e.WallS - f.g.parallel(runs, ParallelWorkers)
	var cs []int
	for ci := range conns {
		cs = append(cs, ci)
	}
	sort.Ints(cs)
	if save <= 0 {
		// The model keeps requests about no object (listings, bucket
		// checks) in order with everything around them: it finds nothing
		// to overlap, and says so rather than invent a saving.
		fd := f.finding("explain-sequential", "warn", fmt.Sprintf(
			"%d objects were moved one request at a time (%d requests, each waiting for the one before, %.2f s): "+
				"send them in parallel (a thread pool, asyncio, Promise.all, the SDK's transfer manager). "+
				"The what-if model cannot price it here: it keeps the run's requests about no object (listings, bucket checks) in order with everything around them.",
			objects, len(reqs), span), map[string]float64{"objects": float64(objects), "requests": float64(len(reqs)), "span_s": span}, cs, reqs)
		return []document.Finding{f.confident(fd, true, falseIf["explain-sequential"], false)}
	}
	return []document.Finding{f.finding("explain-sequential", "warn", fmt.Sprintf(
		"%d objects were moved one request at a time (%d requests, each waiting for the one before, %.2f s): "+
			"send them in parallel (a thread pool, asyncio, Promise.all, the SDK's transfer manager, curl --parallel), "+
			"e.g. %d at once with a connection pool of %d: saves about %.2f s at this RTT (what-if: %d in parallel).",
		objects, len(reqs), span, ParallelWorkers, ParallelWorkers, save, ParallelWorkers),
		map[string]float64{"objects": float64(objects), "requests": float64(len(reqs)), "span_s": span, "save_s": save}, cs, reqs)}
}

// http2Rule: HTTP/1.1 to GCS on several connections with requests in
// flight at once, where the service offers HTTP/2.
func http2Rule(f *facts) []document.Finding {
	var h1 []int
	for ci, c := range f.e.Conns {
		if c.API == "gcs" && c.ALPN != "h2" {
			h1 = append(h1, ci)
		}
	}
	if !f.in.HTTP2Offered || len(h1) < 2 || f.e.MaxInFlight < 2 || f.rtt <= 0 {
		return nil
	}
	save := f.e.WallS - f.g.http2()
	return []document.Finding{f.finding("explain-http2", "info", fmt.Sprintf(
		"The program spoke HTTP/1.1 to GCS on %d connections (%s) with up to %d requests in flight. GCS offers HTTP/2 (as the lab does): "+
			"one connection carries every request at once, saving about %.2f s of handshakes at this RTT (what-if: HTTP/2).",
		len(h1), connIDs(f.e, h1), f.e.MaxInFlight, save), map[string]float64{"connections": float64(len(h1)), "save_s": save}, h1, nil)}
}

// idleTimeoutRule: the server closed idle connections while the program ran.
func idleTimeoutRule(f *facts) []document.Finding {
	var closed []int
	for ci, c := range f.e.Conns {
		if c.ClosedBy == "idle-timeout" && c.ClosedS < f.e.WallS {
			closed = append(closed, ci)
		}
	}
	if len(closed) == 0 {
		return nil
	}
	return []document.Finding{f.finding("explain-idle-timeout", "warn", fmt.Sprintf(
		"The server closed %d idle connections (%s, after %s idle): the next request then paid a new handshake (%.0f round trips). "+
			"Keep the client's idle timeout below the service's, or send the requests closer together.",
		len(closed), connIDs(f.e, closed), f.in.IdleTimeout, f.hs), map[string]float64{"closed": float64(len(closed))}, closed, nil)}
}

// errorsRule: failed requests, the expected misses apart, and the
// throttled ones a retry turned into a success (the throttling finding's).
func errorsRule(f *facts) []document.Finding {
	retried := f.thr.retriedOK
	errs := f.e.Errors - len(retried)
	if errs <= 0 {
		return nil
	}
	var reqs []string
	for _, c := range f.e.Conns {
		for _, r := range c.Requests {
			if (r.Status >= 400 || r.Status == 0) && !retried[r.ID] {
				reqs = append(reqs, r.ID)
			}
		}
	}
	text := fmt.Sprintf("%d of %d requests failed (status 4xx/5xx or no answer): see the timeline.", errs, f.e.Requests)
	if f.e.ExpectedMisses > 0 {
		text += fmt.Sprintf(" (%d more were expected misses: a 404 followed by the creation of what was missing.)", f.e.ExpectedMisses)
	}
	if len(retried) > 0 {
		text += fmt.Sprintf(" (%d more were throttled and retried to a success: see explain-throttled.)", len(retried))
	}
	return []document.Finding{f.finding("explain-errors", "warn", text, map[string]float64{"errors": float64(errs)}, nil, reqs)}
}

// checksumRule: headers the SDK adds on its own.
func checksumRule(f *facts) []document.Finding {
	if len(f.e.ExtraHeaders) == 0 {
		return nil
	}
	return []document.Finding{f.finding("explain-checksum-headers", "info", fmt.Sprintf(
		"Requests carried headers the SDK adds on its own: %s (the 2025 SDK releases add checksums by default); each costs the client CPU to compute, no round trip.",
		units.FormatCounts(f.e.ExtraHeaders)), map[string]float64{}, nil, nil)}
}

// notStorageRule: much of the run spent away from storage. The SDK's
// backoff before retrying a throttled request is time away from storage
// too, but it is not the program's own work: explain-throttled counts it,
// and this rule leaves it out.
func notStorageRule(f *facts) []document.Finding {
	e := f.e
	away, backoff := e.NotStorageS, backoffAway(e, f.thr)
	away = max(away-backoff, 0)
	if e.WallS <= 0 || away <= 0.5 || away/e.WallS <= 0.3 {
		return nil
	}
	text := fmt.Sprintf("The program spent %.2f s of its %.2f s (%.0f%%) not talking to storage: start-up, imports, its own work.",
		away, e.WallS, 100*away/e.WallS)
	if backoff > 0 {
		text += fmt.Sprintf(" (%.2f s more went in the SDK's backoff before retrying throttled requests: see explain-throttled.)", backoff)
	}
	return []document.Finding{f.finding("explain-not-storage", "info", text,
		map[string]float64{"not_storage_s": e.NotStorageS, "backoff_s": backoff}, nil, nil)}
}

// backoffAway is the time the program spent waiting to retry throttled
// requests while no request was in flight: the part of the time away from
// storage that its SDK's backoff explains.
func backoffAway(e *document.Explain, t *throttling) float64 {
	if len(t.waits) == 0 {
		return 0
	}
	half := e.RTTms / 2000
	var busy []interval
	for _, c := range e.Conns {
		for _, r := range c.Requests {
			busy = append(busy, interval{r.ArrivedS - half, r.DoneS + half})
		}
	}
	return max(union(append(slices.Clone(busy), t.waits...), 0, e.WallS)-union(busy, 0, e.WallS), 0)
}

// connIDs is "1, 2, 3" or "1, 2, ... 9 (7 in all)".
func connIDs(e *document.Explain, idx []int) string {
	var s []string
	for i, ci := range idx {
		if i == 4 && len(idx) > 6 {
			s = append(s, fmt.Sprintf("... %d (%d in all)", e.Conns[idx[len(idx)-1]].ID, len(idx)))
			break
		}
		s = append(s, fmt.Sprint(e.Conns[ci].ID))
	}
	return "conn " + joinComma(s)
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func sortedIDs(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// opsText lists operation counts, the named ones (or all) by count.
func opsText(m map[string]int, only ...string) string {
	if len(only) > 0 {
		sub := map[string]int{}
		for _, k := range only {
			if m[k] > 0 {
				sub[k] = m[k]
			}
		}
		m = sub
	}
	return units.FormatCounts(m)
}
