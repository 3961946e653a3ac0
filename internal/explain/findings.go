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
	checksumRule,
	notStorageRule,
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
	f := &facts{e: e, in: in, g: newGraph(e), rtt: e.RTTms / 1000}
	for _, c := range e.Conns {
		f.hs += c.HandshakeRTTs / float64(len(e.Conns))
	}
	var out []document.Finding
	for _, r := range rules {
		out = append(out, r(f)...)
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

// droppedConnsRule: connections the program stopped using (closed, or left
// idle) while it opened new ones of the same API for later requests. With
// one request each it is a new client per object (the naive
// program of docs/clients.md); with several, a pool that closes what it cannot keep idle.
func droppedConnsRule(f *facts) []document.Finding {
	var dropped []int
	replaced := map[int]bool{}
	for ci, c := range f.e.Conns {
		if len(c.Requests) == 0 || (c.ClosedBy != "client" && c.ClosedBy != "open" && c.ClosedBy != "lab-stopped") {
			continue
		}
		end := f.lastEnd(ci)
		found := false
		for cj, d := range f.e.Conns {
			// Opened once c's last answer was in (the slack: a program that
			// drops a client and makes the next at once).
			if cj != ci && d.API == c.API && d.OpenedS >= end-f.tol() && len(d.Requests) > 0 {
				replaced[cj], found = true, true
			}
		}
		if found {
			dropped = append(dropped, ci)
		}
	}
	if len(dropped) < 2 || f.rtt <= 0 {
		return nil
	}
	single, reqs := 0, []string{}
	for _, ci := range dropped {
		if len(f.e.Conns[ci].Requests) == 1 {
			single++
		}
		for _, r := range f.e.Conns[ci].Requests {
			reqs = append(reqs, r.ID)
		}
	}
	save := f.e.WallS - f.g.reuse(replaced)
	ev := map[string]float64{"connections": float64(len(dropped)), "handshake_rtts": f.hs, "save_s": save}
	ids := connIDs(f.e, dropped)
	if single*5 >= len(dropped)*4 {
		return []document.Finding{f.finding("explain-client-per-object", "high", fmt.Sprintf(
			"%d connections (%s) each carried one request and were dropped while the program went on opening new ones: a new client per object does this; "+
				"each new connection costs %.0f round trips (%.0f ms) before its request can leave. "+
				"Create one client and reuse it for every object: saves about %.2f s at this RTT (what-if: one kept client).",
			len(dropped), ids, f.hs, f.hs*f.rtt*1000, save), ev, dropped, reqs)}
	}
	return []document.Finding{f.finding("explain-pool-churn", "warn", fmt.Sprintf(
		"%d connections (%s) were dropped after a few requests while the program opened new ones: a connection pool that closes what it cannot keep idle "+
			"(Go: MaxIdleConnsPerHost, default 2; boto3: max_pool_connections) smaller than the requests in flight. Keep as many idle connections as requests in flight: "+
			"saves about %.2f s at this RTT (what-if: one kept client).", len(dropped), ids, save), ev, dropped, reqs)}
}

// idleConnsRule: connections opened while another of the same API sat
// idle at the client and was used again later: two clients (or pools)
// where one would do.
func idleConnsRule(f *facts) []document.Finding {
	var opened, idle []int
	seen := map[int]bool{}
	for ci, c := range f.e.Conns {
		for cj, d := range f.e.Conns {
			if cj == ci || d.API != c.API || d.OpenedS >= c.OpenedS || d.ALPN == "h2" {
				continue
			}
			// d idle at c's opening: its previous request ended before,
			// its next starts after.
			for i := 0; i+1 < len(d.Requests); i++ {
				prevEnd := d.Requests[i].DoneS + f.rtt/2
				next := d.Requests[i+1].ArrivedS - f.rtt/2
				if prevEnd < c.OpenedS-f.tol() && next > c.OpenedS+f.tol() {
					if !seen[ci] {
						opened = append(opened, ci)
					}
					seen[ci] = true
					if !slices.Contains(idle, cj) {
						idle = append(idle, cj)
					}
					break
				}
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
	return []document.Finding{f.finding("explain-idle-conns", "warn", fmt.Sprintf(
		"%d connections (%s) were opened while others (%s) sat idle and were used again later: the program holds two clients or pools where one would do, "+
			"and pays a handshake (%.0f round trips) for each new connection. Share one client: saves about %.2f s at this RTT (what-if: one kept client).",
		len(opened), connIDs(f.e, opened), connIDs(f.e, idle), f.hs, save),
		map[string]float64{"connections": float64(len(opened)), "idle": float64(len(idle)), "save_s": save}, append(opened, idle...), nil)}
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
			"Upload it in one request (a single PUT; in google-cloud-storage a size below the chunk size or upload_from_string): "+
			"saves %d requests and about %.2f s at this RTT.",
		init, sizeText(f.e.BytesUp/int64(init)), opsText(f.e.Operations, "ResumableInitiate", "CreateMultipartUpload", "UploadPart", "ResumableChunk"),
		len(drop), save), map[string]float64{"uploads": float64(init), "extra_requests": float64(len(drop)), "save_s": save}, nil, ids)}
}

// expectRule: Expect: 100-continue, and the requests that waited for it.
func expectRule(f *facts) []document.Finding {
	if f.e.ExpectContinue == 0 {
		return nil
	}
	waited := map[string]bool{}
	for _, c := range f.e.Conns {
		for _, r := range c.Requests {
			if r.RoundTrips["wait100"] > 0 {
				waited[r.ID] = true
			}
		}
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

// errorsRule: failed requests, the expected misses apart.
func errorsRule(f *facts) []document.Finding {
	if f.e.Errors <= 0 {
		return nil
	}
	var reqs []string
	for _, c := range f.e.Conns {
		for _, r := range c.Requests {
			if r.Status >= 400 || r.Status == 0 {
				reqs = append(reqs, r.ID)
			}
		}
	}
	text := fmt.Sprintf("%d of %d requests failed (status 4xx/5xx or no answer): see the timeline.", f.e.Errors, f.e.Requests)
	if f.e.ExpectedMisses > 0 {
		text += fmt.Sprintf(" (%d more were expected misses: a 404 followed by the creation of what was missing.)", f.e.ExpectedMisses)
	}
	return []document.Finding{f.finding("explain-errors", "warn", text, map[string]float64{"errors": float64(f.e.Errors)}, nil, reqs)}
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

// notStorageRule: much of the run spent away from storage.
func notStorageRule(f *facts) []document.Finding {
	e := f.e
	if e.WallS <= 0 || e.NotStorageS <= 0.5 || e.NotStorageS/e.WallS <= 0.3 {
		return nil
	}
	return []document.Finding{f.finding("explain-not-storage", "info", fmt.Sprintf(
		"The program spent %.2f s of its %.2f s (%.0f%%) not talking to storage: start-up, imports, its own work.",
		e.NotStorageS, e.WallS, 100*e.NotStorageS/e.WallS), map[string]float64{"not_storage_s": e.NotStorageS}, nil, nil)}
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
