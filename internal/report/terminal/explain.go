package terminal

import (
	"fmt"
	"io"
	"strings"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/units"
)

// Timeline bounds: connections and requests per connection printed in
// full (the JSON and the HTML waterfall carry them all).
const (
	timelineConns    = 12
	timelineRequests = 8
)

// WriteLabRecord prints what `lab --record` saw, when the lab stops: a
// note of the requests served beyond the record's bound (dropped), then
// the explanation, or that no request reached the lab.
func WriteLabRecord(w io.Writer, d *document.ExplainDocument, dropped int) error {
	if dropped > 0 {
		fmt.Fprintf(w, "objbench lab: the record kept the first requests only; %d more were served, not recorded\n", dropped)
	}
	if d.Explain.Requests == 0 {
		_, err := fmt.Fprintln(w, "objbench lab: no request reached the lab")
		return err
	}
	return WriteExplainText(w, d)
}

// WriteExplainText writes an explanation: the figures per object, the
// per-connection timeline, the findings and the cost.
func WriteExplainText(w io.Writer, d *document.ExplainDocument) error {
	return WriteExplain(w, d, false)
}

// WriteExplain is WriteExplainText, with the what-if scenarios after the
// findings when whatIf is set (explain --what-if).
func WriteExplain(w io.Writer, d *document.ExplainDocument, whatIf bool) error {
	ew := &errWriter{w: w}
	e := &d.Explain
	if len(e.Program) == 0 {
		fmt.Fprintf(ew, "objbench lab --record %s: whatever connected to the lab", d.RunID)
	} else {
		fmt.Fprintf(ew, "objbench explain %s: %s (exit %d)", d.RunID, strings.Join(e.Program, " "), e.ExitCode)
	}
	if d.Interrupted {
		fmt.Fprint(ew, " (stopped: partial record)")
	}
	fmt.Fprintln(ew)
	if l := d.Lab; l != nil {
		tls := "plain HTTP"
		if l.TLS {
			tls = "TLS"
		}
		path := networkPath(l.Network)
		if l.Rootless { // in a user namespace of objbench's own
			path = strings.Replace(path, "network netns", "network netns, rootless", 1)
		}
		fmt.Fprintf(ew, "lab: profile %s, round trip %s ms, %s%s; recorded at the lab's servers\n", l.Profile, report.Num(l.RTTms), tls, path)
		if l.NetworkNote != "" {
			fmt.Fprintf(ew, "lab: %s\n", l.NetworkNote)
		}
	}
	writeSource(ew, e)
	pct := 0.0
	if e.WallS > 0 {
		pct = 100 * e.NotStorageS / e.WallS
	}
	fmt.Fprintf(ew, "\nwall %s s: talking to storage %s s, not %s s (%.0f%%)\n", report.Fixed(e.WallS, 2), report.Fixed(e.StorageS, 2), report.Fixed(e.NotStorageS, 2), pct)
	misses := ""
	if e.ExpectedMisses > 0 {
		misses = fmt.Sprintf(" (and %d expected misses: a 404 before creating what was missing)", e.ExpectedMisses)
	}
	fmt.Fprintf(ew, "objects %d (%s up, %s down)   requests %d (%s per object)   errors %d%s\n",
		e.Objects, report.HumanBytes(float64(e.BytesUp)), report.HumanBytes(float64(e.BytesDown)), e.Requests, report.Fixed(e.RequestsPerObject, 2), e.Errors, misses)
	fmt.Fprintf(ew, "connections %d (%s per object, most open at once %d)   TLS handshakes %d   most requests in flight %d (as the client saw them)\n",
		e.Connections, report.Fixed(e.ConnectionsPerObject, 2), e.MaxOpenConns, e.TLSHandshakes, e.MaxInFlight)
	if e.RTTms > 0 {
		var parts []string
		for _, p := range phaseNames {
			if v := e.RoundTripsByPhase[p]; v >= 0.005 {
				parts = append(parts, p+" "+report.Fixed(v, 2))
			}
		}
		if e.Objects > 0 {
			fmt.Fprintf(ew, "round trips per object %s: %s\n", report.Fixed(e.RoundTripsPerObject, 2), strings.Join(parts, ", "))
		} else {
			fmt.Fprintf(ew, "round trips in all (no object moved): %s\n", strings.Join(parts, ", "))
		}
	}
	fmt.Fprintf(ew, "operations: %s\n", counts(e.Operations))
	var hdrs []string
	if e.ExpectContinue > 0 {
		hdrs = append(hdrs, fmt.Sprintf("Expect: 100-continue on %d requests", e.ExpectContinue))
	}
	if len(e.ExtraHeaders) > 0 {
		hdrs = append(hdrs, "added by the SDK: "+counts(e.ExtraHeaders))
	}
	if len(hdrs) > 0 {
		fmt.Fprintf(ew, "headers: %s\n", strings.Join(hdrs, "; "))
	}
	if e.Cost != nil && e.Objects > 0 {
		fmt.Fprintf(ew, "cost at %s list prices: %s per 1,000 objects\n", e.Cost.Provider, analysis.FormatUSD(e.CostUSDPer1000Objects))
	}
	writeTimeline(ew, e)
	WriteFindings(ew, e.Findings)
	if whatIf {
		writeWhatIf(ew, e)
	}
	return ew.err
}

// writeWhatIf prints the what-if scenarios: predicted wall time and saving.
func writeWhatIf(w io.Writer, e *document.Explain) {
	if len(e.WhatIf) == 0 {
		fmt.Fprintln(w, "\nwhat if: no scenario applies (no request, or nothing to re-time)")
		return
	}
	fmt.Fprintf(w, "\nwhat if (the recorded timeline re-timed under each fix: same connection, same thread of requests, the program's own gaps kept; recorded wall %s s)\n", report.Fixed(e.WallS, 2))
	var rows [][]string
	for _, s := range e.WhatIf {
		rows = append(rows, []string{"  " + s.ID, report.Fixed(s.WallS, 2), report.Fixed(s.SaveS, 2), fmt.Sprintf("%.0f%%", 100*document.Finite(s.SaveS/e.WallS))})
	}
	leftTable(w, []string{"  scenario", "wall s", "saves s", "saves"}, rows)
	for _, s := range e.WhatIf {
		lines := wrap(s.ID+": "+s.Text, 104)
		for i, l := range lines {
			fmt.Fprintf(w, "  %s%s\n", strings.Repeat(" ", min(i, 1)*4), l)
		}
	}
}

// writeTimeline prints each connection and its requests, times in seconds
// since the program started.
func writeTimeline(w io.Writer, e *document.Explain) {
	if len(e.Conns) == 0 {
		return
	}
	fmt.Fprintln(w, "\ntimeline (s since the program started; server times; idle = the client's own time between requests)")
	for i, c := range e.Conns {
		if i == timelineConns {
			n := 0
			for _, c := range e.Conns[i:] {
				n += len(c.Requests)
			}
			fmt.Fprintf(w, "  ... %d more connections, %d requests (--json or the HTML report has them all)\n", len(e.Conns)-i, n)
			break
		}
		proto := "http"
		if c.TLSVersion != "" {
			proto = "TLS " + c.TLSVersion
		}
		if c.ALPN != "" {
			proto += " " + c.ALPN
		}
		fmt.Fprintf(w, "  conn %d %s %s: opened %s, handshake %s RTT, closed %s by %s, %d requests\n",
			c.ID, c.API, proto, report.Fixed(c.OpenedS, 3), report.Fixed(c.HandshakeRTTs, 1), report.Fixed(c.ClosedS, 3), c.ClosedBy, len(c.Requests))
		for j, r := range c.Requests {
			if j == timelineRequests {
				fmt.Fprintf(w, "      ... %d more requests\n", len(c.Requests)-j)
				break
			}
			idle := ""
			if r.IdleBeforeS >= 0.001 {
				idle = fmt.Sprintf("idle %s s, ", report.Fixed(r.IdleBeforeS, 3))
			}
			size := ""
			if r.BytesIn > 0 {
				size += " up " + report.HumanBytes(float64(r.BytesIn))
			}
			if r.BytesOut > 0 {
				size += " down " + report.HumanBytes(float64(r.BytesOut))
			}
			hdr := ""
			if len(r.Headers) > 0 {
				hdr = " [" + strings.Join(r.Headers, ", ") + "]"
			}
			fmt.Fprintf(w, "    %s%s-%s %s %s %d%s %s%s\n", idle, report.Fixed(r.ArrivedS, 3), report.Fixed(r.DoneS, 3), r.Method, r.Operation, r.Status, size, shortPath(r.Path), hdr)
		}
	}
}

func shortPath(p string) string {
	if len(p) > 48 {
		return p[:22] + "..." + p[len(p)-23:]
	}
	return p
}

// counts is "a 3, b 1", the largest first, or "none".
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	return units.FormatCounts(m)
}

// WriteExplainJSON writes the objbench/v1 explain document.
func WriteExplainJSON(w io.Writer, d *document.ExplainDocument) error { return writeDoc(w, d) }

// writeExplainComparison prints two explained runs' figures side by side.
func writeExplainComparison(w io.Writer, c analysis.Comparison) {
	if c.Note != "" {
		fmt.Fprintln(w, c.Note)
	}
	var body [][]string
	for _, r := range c.Explain {
		change := "-"
		if r.A != 0 {
			change = fmt.Sprintf("%+.0f%%", 100*r.Change)
		}
		body = append(body, []string{r.Metric, report.Num(r.A), report.Num(r.B), change, r.Verdict})
	}
	leftTable(w, []string{"explain", "A", "B", "change", "verdict"}, body)
	fmt.Fprintln(w)
}

// networkPath says in words which path carried the program's traffic
// ("" for a document that does not say).
func networkPath(model string) string {
	switch model {
	case "":
		return ""
	case "netns":
		return "; network netns (the program's own kernel TCP on the emulated wire)"
	case "netstack":
		return "; network netstack (the program's bytes forwarded across user-space TCP)"
	case "direct":
		return "; network direct (loopback)"
	}
	return "; network " + model
}

// WriteExplainOut prints an explain document as JSON, or as text (with
// the what-if scenarios when whatIf).
func WriteExplainOut(w io.Writer, d *document.ExplainDocument, jsonOut, whatIf bool) error {
	return report.WriteOutput("", w, func(w io.Writer) error {
		if jsonOut {
			return WriteExplainJSON(w, d)
		}
		return WriteExplain(w, d, whatIf)
	})
}

// writeSource says, for a timeline not recorded by the lab, where it came
// from, what carried the program's packets and how each connection was
// read (decrypted, inferred, connection facts only).
func writeSource(w io.Writer, e *document.Explain) {
	if e.Source == "" || e.Source == "lab" {
		return
	}
	what := map[string]string{"wire": "the program's packets on its real path", "pcap": "a capture", "proxy": "a CONNECT tunnel (HTTPS_PROXY)"}[e.Source]
	fmt.Fprintf(w, "source: %s (%s)", e.Source, what)
	if e.Path != "" {
		fmt.Fprintf(w, ", path %s", e.Path)
	}
	if e.RTTms > 0 {
		fmt.Fprintf(w, ", round trip %s ms as its packets measured it", report.Num(e.RTTms))
	}
	fmt.Fprintln(w)
	if e.PathNote != "" {
		fmt.Fprintf(w, "source: %s\n", e.PathNote)
	}
	n := map[string]int{}
	var order []string
	for _, c := range e.Conns {
		how := c.Read
		if how == "" {
			how = "unknown"
		}
		if n[how] == 0 {
			order = append(order, how)
		}
		n[how]++
	}
	if len(order) == 0 {
		return
	}
	words := map[string]string{"plain": "plain HTTP", "decrypted": "decrypted with the program's TLS keys", "inferred": "requests inferred from TLS records (no keys)",
		"connection": "connection facts only (HTTP/2 or another protocol, no keys)", "unknown": "not read"}
	parts := make([]string, 0, len(order))
	for _, how := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[how], words[how]))
	}
	fmt.Fprintf(w, "connections read: %s\n", strings.Join(parts, "; "))
	for _, c := range e.Conns {
		if c.Read == "" {
			continue
		}
		tls := ""
		if c.TLSVersion != "" {
			tls = " TLS " + c.TLSVersion
			if c.Cipher != "" {
				tls += " " + c.Cipher
			}
			if c.Resumed != "" {
				tls += " resumed (" + c.Resumed + ")"
			}
		}
		sni := ""
		if c.SNI != "" {
			sni = " " + c.SNI
		}
		fmt.Fprintf(w, "  conn %d%s%s: %s, %d requests\n", c.ID, sni, tls, c.Read, len(c.Requests))
	}
}
