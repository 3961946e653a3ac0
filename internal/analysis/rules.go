package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

// phaseOrder is the phase model's order (docs/design.md#the-phase-model).
var phaseOrder = nettrace.PhaseNames()

// stepName names a step in a sentence: "get 1KiB", "put 32MiB c=5".
func stepName(r document.Result) string {
	s := r.Op + " " + units.FormatSize(r.SizeBytes)
	if r.Workload == "concurrency" || r.Concurrency > 1 {
		s += " c=" + strconv.Itoa(r.Concurrency)
	}
	if r.Workload == load.Ranges && r.Parts != nil {
		s += " parts=" + units.FormatSize(r.Parts.SizeBytes) + "x" + strconv.Itoa(r.Parts.Parallel)
	}
	return s
}

// fmtMs prints milliseconds with precision suited to the magnitude.
func fmtMs(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 0.1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// FormatUSD prints dollars: cents from $1 up, four decimals from a cent,
// else to the millionth, with no trailing zeros ($0.0005).
func FormatUSD(v float64) string {
	switch {
	case v >= 1:
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	case v >= 0.01:
		return "$" + strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
	}
	return "$" + strconv.FormatFloat(roundMicro(v), 'f', -1, 64)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// coldSentence explains a cold request against a warm one from their
// per-phase p50s: which phases hold the difference, and how many round
// trips it is when rtt is known.
func coldSentence(what string, first, later float64, firstPh, laterPh map[string]float64, rtt float64, ev map[string]float64) string {
	extra := first - later
	var parts []string
	for _, p := range phaseOrder {
		d := firstPh[p] - laterPh[p]
		if d > 0 && d >= 0.15*extra {
			parts = append(parts, fmt.Sprintf("%s %s", p, fmtMs(d)))
			ev[p+"_extra_ms"] = d
		}
	}
	s := fmt.Sprintf("a worker's first %s took %s ms, later ones %s", what, fmtMs(first), fmtMs(later))
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, " and ") + " ms more"
	}
	if rtt > 0 {
		rts := extra / rtt
		ev["round_trips"], ev["rtt_ms"] = rts, rtt
		s += fmt.Sprintf(", %.1f round trips of %s ms", rts, fmtMs(rtt))
	}
	return s + "; reuse clients and keep connections alive so that only the first request pays for the connection."
}

// coldWarmRule: the cost of a cold request (a new connection) against a
// warm one, by phase and in round trips.
func coldWarmRule(f *Facts) []document.Finding {
	switch d := f.Doc.(type) {
	case *document.Document:
		return coldWarmRun(f, d)
	case *document.StrategiesDocument:
		fl := d.FirstVsLater
		if fl == nil {
			return nil
		}
		first, later := fl.First["total"], fl.Later["total"]
		if first < 1.5*later || first-later < 0.5 {
			return nil
		}
		rtt := 0.0
		if d.Lab != nil {
			rtt = d.Lab.RTTms
		}
		ev := map[string]float64{"first_total_ms": first, "later_total_ms": later}
		text := coldSentence("GET", first, later, fl.First, fl.Later, rtt, ev)
		return []document.Finding{finding("cold-vs-warm", Warn, text, ev)}
	}
	return nil
}

func coldWarmRun(f *Facts, doc *document.Document) []document.Finding {
	best := ColdStep(doc)
	if best == nil || best.FirstRequest.ReusedFraction >= 0.5 {
		return nil
	}
	first, later := best.FirstRequest.TTFBms.P50, best.LaterRequests.TTFBms.P50
	if first-later < 0.5 || first < 1.5*later {
		return nil
	}
	p50s := func(g document.Group) map[string]float64 {
		m := map[string]float64{}
		for k, v := range g.PhasesMs {
			m[k] = v.P50
		}
		return m
	}
	ev := map[string]float64{"first_ttfb_ms": first, "later_ttfb_ms": later, "extra_ms": first - later}
	what := strings.ToUpper(best.Op)
	if best.SizeBytes > 0 {
		what += " of " + units.FormatSize(best.SizeBytes)
	}
	text := coldSentence(what, first, later, p50s(best.FirstRequest), p50s(best.LaterRequests), f.rttMs(), ev)
	sev := Info
	if first >= 2*later {
		sev = Warn
	}
	return []document.Finding{finding("cold-vs-warm", sev, text, ev)}
}

// reuseRule: later requests that did not reuse a connection, with the
// likely cause.
func reuseRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok || doc.Options["conn"] == "fresh" {
		return nil
	}
	var worst *document.Result
	var steps, reconnects int64
	for i := range doc.Results {
		r := &doc.Results[i]
		g := r.LaterRequests
		if r.Strategy == "fresh" || g.Count < 5 || (g.ReusedFraction >= 0.95 && r.Reconnects == 0) {
			continue
		}
		steps++
		reconnects += r.Reconnects
		if worst == nil || g.ReusedFraction < worst.LaterRequests.ReusedFraction {
			worst = r
		}
	}
	if worst == nil {
		return nil
	}
	g := worst.LaterRequests
	var cause string
	switch {
	case worst.Errors > 0:
		cause = "failed requests (a connection that errs is closed, and the next request dials)"
	case worst.SilentRetries > 0:
		cause = "the server closing or resetting connections the client meant to reuse"
	case worst.Concurrency > 1:
		cause = "the server closing connections (an idle timeout shorter than the gap between requests, or a cap on requests per connection), or a connection pool smaller than the concurrency"
	default:
		cause = "the server closing connections: an idle timeout shorter than the gap between requests, or a cap on requests per connection"
	}
	text := fmt.Sprintf("%s: only %.0f%% of later requests reused a connection (%s)", stepName(*worst), 100*g.ReusedFraction, plural(worst.Reconnects, "reconnect", "reconnects"))
	if steps > 1 {
		text += fmt.Sprintf(", and %d more steps reused less than 95%% (%s in all)", steps-1, plural(reconnects, "reconnect", "reconnects"))
	}
	text += "; likely cause: " + cause + ". Each new connection costs its handshakes again."
	ev := map[string]float64{"reused_fraction": g.ReusedFraction, "reconnects": float64(worst.Reconnects), "steps": float64(steps)}
	return []document.Finding{finding("connection-reuse", Warn, text, ev)}
}

// requestsPerObjectRule: operations that take more than one HTTP request
// per object, why, and what the extra requests cost.
func requestsPerObjectRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	type key struct {
		op   string
		size int64
	}
	var order []key
	rpo := map[key]float64{}
	for _, r := range doc.Results {
		if r.Count == 0 || r.RequestsPerOp <= 1.05 || (r.Workload == load.Ranges && r.Parts != nil) { // the sweep's ranges: rangeSweepRule
			continue
		}
		k := key{r.Op, r.SizeBytes}
		if _, ok := rpo[k]; !ok {
			order = append(order, k)
		}
		rpo[k] = max(rpo[k], r.RequestsPerOp)
	}
	provider := doc.Target.Provider
	if doc.Lab != nil {
		provider = doc.Lab.API
	}
	var out []document.Finding
	for _, k := range order {
		n := rpo[k]
		why := "retries or several exchanges"
		if k.op == "get" && doc.Options["download"] == "ranged" {
			why = "a ranged download: the object read in byte ranges in parallel, as --download ranged asks"
		}
		if k.op == "put" {
			switch provider {
			case "gcs", "gs":
				why = "a resumable upload: an initiation request, then the data"
			case "azure", "az":
				why = fmt.Sprintf("a block upload: %.0f blocks, then the block list", n-1)
			default:
				why = fmt.Sprintf("a multipart upload: initiate, %.0f parts, complete", n-2)
			}
			if doc.Options["expect_continue"] == "true" {
				why += "; with Expect: 100-continue each request waits one more round trip"
			}
		}
		if x := doc.Express; x != nil && x.CreateSession > 0 {
			if n < 2 { // no multipart upload has fewer than 3 requests
				why = "the CreateSession a directory bucket's cold client sends before its first request, counted with that request"
			} else {
				why += "; with a directory bucket's CreateSession, one per client and session"
			}
		}
		text := fmt.Sprintf("%s %s takes %.1f HTTP requests per object (%s)", k.op, units.FormatSize(k.size), n, why)
		ev := map[string]float64{"requests_per_object": n, "size_bytes": float64(k.size)}
		if t := f.Table; t != nil {
			per := t.PerThousand[k.op] * 1000 // $ per million requests
			ev["usd_per_million_objects"], ev["usd_per_million_single_request"] = per*n, per
			text += fmt.Sprintf(": the extra requests cost at least one round trip each and, at %s list prices, %s per million objects instead of %s with one request",
				f.Cost.Provider, FormatUSD(per*n), FormatUSD(per))
		}
		sev := Info
		if n >= 2 {
			sev = Warn
		}
		out = append(out, finding("requests-per-object", sev, text+".", ev))
	}
	return out
}

// phaseCause says what a tail in a phase usually means.
var phaseCause = map[string]string{
	"dns":     "name resolution (cache it)",
	"connect": "new connections (reuse them, or pre-warm)",
	"tls":     "TLS handshakes (reuse connections)",
	"send":    "sending the request body (upload bandwidth)",
	"wait100": "waiting for 100 Continue",
	"wait":    "the server's time to the first byte (load, throttling or queueing)",
	"recv":    "receiving the body (bandwidth or congestion)",
}

// tailRule: a p99 more than three times the p50, and the phase the tail
// sits in.
func tailRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	var worst *document.Result
	var ratio float64
	var others int
	for i := range doc.Results {
		r := &doc.Results[i]
		t := r.TotalMs
		if r.Count < 100 || t.P50 <= 0 || t.P99 < 3*t.P50 || t.P99-t.P50 < 1 {
			continue
		}
		if worst != nil {
			others++
		}
		if q := t.P99 / t.P50; q > ratio {
			worst, ratio = r, q
		}
	}
	if worst == nil {
		return nil
	}
	phase, spread := "", 0.0
	for _, p := range phaseOrder {
		d := worst.PhasesMs[p]
		if s := d.P99 - d.P50; s > spread {
			phase, spread = p, s
		}
	}
	t := worst.TotalMs
	text := fmt.Sprintf("%s: the p99 is %.1fx the p50 (%s ms against %s)", stepName(*worst), ratio, fmtMs(t.P99), fmtMs(t.P50))
	ev := map[string]float64{"ratio": ratio, "p50_ms": t.P50, "p99_ms": t.P99}
	if phase != "" {
		d := worst.PhasesMs[phase]
		text += fmt.Sprintf("; the tail sits in %s (p99 %s ms, p50 %s): %s", phase, fmtMs(d.P99), fmtMs(d.P50), phaseCause[phase])
		ev[phase+"_p99_ms"], ev[phase+"_p50_ms"] = d.P99, d.P50
	}
	if others > 0 {
		text += fmt.Sprintf("; %d more steps have a p99 over 3x their p50", others)
	}
	return []document.Finding{finding("tail-latency", Warn, text+".", ev)}
}

// sizeFitRule: from the size sweep's fit total = fixed + size/rate, the
// size below which round trips and set-up dominate and above which
// bandwidth does.
func sizeFitRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	var out []document.Finding
	for _, op := range []string{"get", "put"} {
		fit, ok := fitSweep(doc, op)
		if !ok || len(fit.Points) < 3 {
			continue
		}
		verb := map[string]string{"get": "downloads", "put": "uploads"}[op]
		ev := map[string]float64{"fixed_ms": fit.TTFBms, "mb_per_s": fit.MBps}
		var text string
		if fit.TTFBms < 0.05 {
			text = fmt.Sprintf("%s: no fixed cost per request shows in the size sweep; time follows size at %.0f MB/s, so bandwidth limits every size measured.", verb, fit.MBps)
		} else {
			cross := fit.TTFBms / 1000 * fit.MBps * 1e6
			ev["crossover_bytes"] = cross
			text = fmt.Sprintf("%s: each request costs a fixed %s ms plus size at %.0f MB/s, so objects below about %s are limited by round trips and set-up (reuse connections, run requests in parallel, pack small objects together) and larger ones by bandwidth (parallel streams or ranged requests).",
				verb, fmtMs(fit.TTFBms), fit.MBps, humanBytes(cross))
		}
		out = append(out, finding("size-fit-"+op, Info, text, ev))
	}
	return out
}

// humanBytes prints a byte count in decimal units: 7.8 MB, 300 KB.
func humanBytes(b float64) string {
	switch {
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.0f KB", b/1e3)
	}
	return fmt.Sprintf("%.0f B", b)
}

// concurrencyRule: aggregate throughput that stops growing as workers are
// added, and the level where it stops.
func concurrencyRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	var out []document.Finding
	for _, op := range []string{"put", "get"} {
		var steps []document.Result
		for _, r := range doc.Results {
			if r.Workload == "concurrency" && r.Op == op && r.Count > 0 {
				steps = append(steps, r)
			}
		}
		if len(steps) < 3 {
			continue
		}
		slices.SortStableFunc(steps, func(a, b document.Result) int { return a.Concurrency - b.Concurrency })
		stop := -1
		for i := 0; i < len(steps)-1 && stop < 0; i++ {
			higher := 0.0
			for _, s := range steps[i+1:] {
				higher = max(higher, s.AggregateMBps)
			}
			if higher < 1.15*steps[i].AggregateMBps {
				stop = i
			}
		}
		if stop < 0 {
			continue
		}
		var levels []string
		for _, s := range steps {
			levels = append(levels, fmt.Sprintf("%.0f at c=%d", s.AggregateMBps, s.Concurrency))
		}
		verb := map[string]string{"get": "downloads", "put": "uploads"}[op]
		s, last := steps[stop], steps[len(steps)-1]
		text := fmt.Sprintf("%s: aggregate throughput stops growing at c=%d (MB/s: %s); more parallel requests only take longer (p50 %s ms at c=%d, %s at c=%d)",
			verb, s.Concurrency, strings.Join(levels, ", "), fmtMs(s.TotalMs.P50), s.Concurrency, fmtMs(last.TotalMs.P50), last.Concurrency)
		ev := map[string]float64{"concurrency": float64(s.Concurrency), "aggregate_mb_per_s": s.AggregateMBps, "max_concurrency": float64(last.Concurrency), "max_concurrency_mb_per_s": last.AggregateMBps}
		// Who is the bottleneck: the process's CPU at the most parallel step.
		if u, ok := cpuUseOf(doc, []document.Result{last}); ok {
			text += fmt.Sprintf("; at c=%d %s.", last.Concurrency, u.sentence())
			ev["cpu_cores"], ev["cpu_share"] = u.cores, u.share()
		} else {
			text += ": bandwidth, the server or this client is the bottleneck."
		}
		out = append(out, finding("concurrency-plateau-"+op, Warn, text, ev))
	}
	return out
}

// injectedRate reads a fault's rate from the lab's --fault option
// ("reset=50%,timeout=1%"): 0.5, or 0 when absent.
func injectedRate(faults, name string) float64 {
	for _, part := range strings.Split(faults, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k != name {
			continue
		}
		pct := strings.HasSuffix(v, "%")
		x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil {
			return 0
		}
		if pct {
			x /= 100
		}
		return x
	}
	return 0
}

// errorsRule: errors by class, and the retries the transport made
// silently, side by side with the faults the lab injected.
func errorsRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok {
		return nil
	}
	var ops, errs, silent int64
	classes := map[string]int64{}
	for _, r := range doc.Results {
		ops += r.Count + r.Errors
		errs += r.Errors
		silent += r.SilentRetries
		for k, v := range r.ErrorsByClass {
			classes[k] += v
		}
	}
	if errs == 0 && silent == 0 || ops == 0 {
		return nil
	}
	ev := map[string]float64{"operations": float64(ops), "errors": float64(errs), "error_rate": float64(errs) / float64(ops), "silent_retries": float64(silent)}
	var text string
	if errs > 0 {
		var cs []string
		for _, k := range slices.Sorted(maps.Keys(classes)) {
			cs = append(cs, fmt.Sprintf("%s %d", k, classes[k]))
			ev["errors_"+k] = float64(classes[k])
		}
		text = fmt.Sprintf("%d of %d operations failed (%.1f%%: %s)", errs, ops, 100*float64(errs)/float64(ops), strings.Join(cs, ", "))
	} else {
		text = fmt.Sprintf("no operation failed out of %d", ops)
	}
	if n := classes[string(storage.ClassCorrupt)]; n > 0 {
		text += fmt.Sprintf("; %s returned bytes other than those written (checked as they streamed: a client that does not check would have used them)", plural(n, "download", "downloads"))
	}
	faults := doc.Options["fault"]
	if rate := injectedRate(faults, "reset"); rate > 0 {
		// GETs are what the transport retries: set them side by side.
		var gets, getErrs, getSilent int64
		for _, r := range doc.Results {
			if r.Op == "get" {
				gets, getErrs, getSilent = gets+r.Count+r.Errors, getErrs+r.Errors, getSilent+r.SilentRetries
			}
		}
		ev["injected_reset_rate"] = rate
		if gets > 0 {
			ev["get_error_rate"], ev["get_silent_retries"] = float64(getErrs)/float64(gets), float64(getSilent)
			text += fmt.Sprintf("; GETs: the lab reset %.0f%% of requests, %.1f%% failed, %d were retried silently", 100*rate, 100*float64(getErrs)/float64(gets), getSilent)
		} else {
			text += fmt.Sprintf("; the lab reset %.0f%% of requests", 100*rate)
		}
	} else if faults != "" {
		text += fmt.Sprintf("; the lab injected %s", faults)
	}
	if silent > 0 {
		text += fmt.Sprintf(": in all, Go's HTTP transport sent %s again on a new connection without reporting it (it retries an idempotent request once when a reused connection fails), so fewer failures surface than happen, and each retry is one more billed request and round trip", plural(silent, "request", "requests"))
	}
	sev := Warn
	if float64(errs) >= 0.01*float64(ops) {
		sev = High
	}
	return []document.Finding{finding("errors", sev, text+".", ev)}
}

// emptyStepsRule: steps that completed no request, whose rows are empty
// ("-"), and why. A read step (GET, HEAD, DELETE) after an upload step
// that stored no object had nothing to read; any other step ended (its
// --duration) before its first response. When no step completed a
// request, one finding says so. A mixed step's ops are left out: a short
// mix can draw no request of a rare op.
func emptyStepsRule(f *Facts) []document.Finding {
	doc, ok := f.Doc.(*document.Document)
	if !ok || len(doc.Results) == 0 {
		return nil
	}
	var unread, short []string
	var failed, ended int64
	classes := map[string]int64{}
	wall := 0.0
	seen := map[string]int{}
	for _, r := range doc.Results {
		seen[stepName(r)]++
	}
	name := func(i int, r document.Result) string { // step i+1 of the table when two read alike
		if seen[stepName(r)] > 1 {
			return fmt.Sprintf("%s (step %d)", stepName(r), i+1)
		}
		return stepName(r)
	}
	for i, r := range doc.Results {
		if r.Count+r.Errors > 0 || r.Workload == "mixed" { // a mix's op can draw no request
			continue
		}
		put := -1
		if r.Op == "get" || r.Op == "head" || r.Op == "delete" {
			for j := i - 1; j >= 0; j-- {
				if doc.Results[j].Op == "put" {
					put = j
					break
				}
			}
		}
		if put >= 0 && doc.Results[put].Count == 0 {
			w := doc.Results[put]
			unread = append(unread, name(i, r))
			failed += w.Errors
			if w.Errors == 0 {
				ended++
			}
			for k, v := range w.ErrorsByClass {
				classes[k] += v
			}
			continue
		}
		short = append(short, name(i, r))
		wall = max(wall, r.WallS)
	}
	if len(short)+len(unread) == 0 {
		return nil
	}
	rtt := ""
	if ms := f.rttMs(); ms > 0 {
		rtt = fmt.Sprintf(" (a round trip is %s ms here)", fmtMs(ms))
	}
	if len(short)+len(unread) == len(doc.Results) {
		return []document.Finding{finding("nothing-measured", High, fmt.Sprintf(
			"no step completed a request: each ended before its first response%s, so every row is empty; give the steps a longer --duration (the longest ran %.2f s)", rtt, wall)+".",
			map[string]float64{"steps": float64(len(doc.Results)), "wall_s": wall})}
	}
	var out []document.Finding
	if len(unread) > 0 {
		why := "every upload of the step before each failed"
		if failed > 0 {
			var cs []string
			for _, k := range slices.Sorted(maps.Keys(classes)) {
				cs = append(cs, fmt.Sprintf("%s %d", k, classes[k]))
			}
			why += fmt.Sprintf(" (%d: %s)", failed, strings.Join(cs, ", "))
		}
		if ended > 0 {
			why = "the upload step before each ended before any upload completed"
			if failed > 0 {
				why = "the upload step before each stored no object (it failed or ended first)"
			}
		}
		out = append(out, finding("nothing-read", High, fmt.Sprintf("%s made no request: %s, so there was no object to read and the rows are empty",
			strings.Join(unread, ", "), why)+".", map[string]float64{"steps": float64(len(unread)), "put_errors": float64(failed)}))
	}
	if len(short) > 0 {
		out = append(out, finding("step-too-short", High, fmt.Sprintf("%s completed no request: each ended before its first response%s, so the rows are empty; give the steps a longer --duration",
			strings.Join(short, ", "), rtt)+".", map[string]float64{"steps": float64(len(short)), "wall_s": wall}))
	}
	return out
}

// strategiesRule: the largest saving per op and size, and what each
// strategy costs per million objects.
func strategiesRule(f *Facts) []document.Finding {
	s, ok := f.Doc.(*document.StrategiesDocument)
	if !ok {
		return nil
	}
	var out []document.Finding
	for _, line := range s.Summary {
		out = append(out, finding("strategies-saving", Warn, line, nil))
	}
	for _, r := range s.Strategies {
		if !r.Available || r.Strategy != "sdk-default" || r.RequestsPerObject <= 1.05 {
			continue
		}
		var single *document.StrategyRow
		for i := range s.Strategies {
			x := &s.Strategies[i]
			if x.Available && x.Strategy == "single-request" && x.Op == r.Op && x.SizeBytes == r.SizeBytes {
				single = x
			}
		}
		text := fmt.Sprintf("%s %s: sdk-default makes %.1f requests per object", r.Op, units.FormatSize(r.SizeBytes), r.RequestsPerObject)
		ev := map[string]float64{"requests_per_object": r.RequestsPerObject, "usd_per_million_objects": r.CostPerMillionUSD}
		if single != nil && f.Cost != nil {
			text += fmt.Sprintf("; at %s list prices a million objects cost %s that way and %s with single-request: the extra requests cost money, not only time",
				f.Cost.Provider, FormatUSD(r.CostPerMillionUSD), FormatUSD(single.CostPerMillionUSD))
			ev["usd_per_million_single_request"] = single.CostPerMillionUSD
		}
		out = append(out, finding("strategies-requests", Info, text+".", ev))
	}
	return out
}

// compareRule: how many steps changed, and the largest change.
func compareRule(f *Facts) []document.Finding {
	c := f.Comparison
	if c == nil || len(c.Steps) == 0 {
		return nil
	}
	var faster, slower, same int
	var big *StepComparison
	for i := range c.Steps {
		s := &c.Steps[i]
		switch s.Verdict {
		case "B faster":
			faster++
		case "B slower":
			slower++
		default:
			same++
			continue
		}
		if big == nil || math.Abs(s.DeltaP50.Delta/max(s.A.P50, 1e-9)) > math.Abs(big.DeltaP50.Delta/max(big.A.P50, 1e-9)) {
			big = s
		}
	}
	ev := map[string]float64{"faster": float64(faster), "slower": float64(slower), "unchanged": float64(same)}
	text := fmt.Sprintf("B is faster on %d steps, slower on %d, with no significant difference on %d", faster, slower, same)
	sev := Info
	if big != nil {
		pct := 100 * big.DeltaP50.Delta / max(big.A.P50, 1e-9)
		ev["largest_change_pct"] = pct
		text += fmt.Sprintf("; the largest change is %s: p50 %s ms → %s (%+.0f%%)", strings.TrimSpace(big.Step), fmtMs(big.A.P50), fmtMs(big.B.P50), pct)
		if slower > 0 {
			sev = Warn
		}
	}
	out := []document.Finding{finding("compare-verdicts", sev, text+".", ev)}
	for _, x := range c.Crossovers {
		if x.SizeBytes > 0 {
			out = append(out, finding("crossover-"+x.Op, Info,
				fmt.Sprintf("%s: %s finishes sooner for objects larger than %s.", x.Op, x.Faster, humanBytes(x.SizeBytes)),
				map[string]float64{"size_bytes": x.SizeBytes}))
		}
	}
	return out
}
