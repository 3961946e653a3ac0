package html

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
)

// waterfallRows bounds the connections drawn (the JSON has them all).
const waterfallRows = 60

// waterfallFigures are the explained runs' waterfalls.
func waterfallFigures(runs []HTMLRun) []figure {
	var out []figure
	for _, r := range runs {
		d, ok := r.Doc.(*document.ExplainDocument)
		if !ok {
			continue
		}
		e := &d.Explain
		caption := fmt.Sprintf("%s: one row per connection, time since the program started (the client's view: the server's times ± half a round trip). "+
			"Grey: the connection open; orange: its handshake (TCP and TLS round trips); bars: requests (blue uploads, green downloads, grey other; red failed); "+
			"dotted: the client's idle time before a request. Outlined in red, with the label in red: the connections and requests a finding names "+
			"(hover for which).", strings.Join(e.Program, " "))
		if e.Source != "" && e.Source != "lab" {
			// Read off the wire (or a tunnel): say so, and what it cannot show.
			caption += fmt.Sprintf(" Source: %s", e.Source)
			if e.Path != "" {
				caption += ", path " + e.Path
			}
			if e.PathNote != "" {
				caption += " (" + e.PathNote + ")"
			}
			caption += "."
		}
		if len(e.Conns) > waterfallRows {
			caption += fmt.Sprintf(" The first %d of %d connections.", waterfallRows, len(e.Conns))
		}
		out = append(out, figure{Caption: caption, SVG: waterfall(e)})
	}
	return out
}

// waterfall draws connections as rows and requests as bars on a time axis.
func waterfall(e *document.Explain) template.HTML {
	conns := e.Conns
	if len(conns) > waterfallRows {
		conns = conns[:waterfallRows]
	}
	const left, right, top, rowH = 150.0, 20.0, 30.0, 16.0
	width := 960.0
	height := top + rowH*float64(len(conns)) + 40
	x := axis{label: "seconds since the program started"}
	x.include(0)
	x.include(e.WallS)
	for _, c := range conns {
		x.include(c.OpenedS)
		x.include(c.ClosedS)
	}
	x.finish()
	px := func(v float64) float64 { return left + x.frac(v)*(width-left-right) }
	rtt := e.RTTms / 1000
	// What the findings name, by connection id and request id.
	namedConn, namedReq := map[int][]string{}, map[string][]string{}
	for _, f := range e.Findings {
		for _, id := range f.Conns {
			namedConn[id] = append(namedConn[id], f.ID)
		}
		for _, id := range f.Requests {
			namedReq[id] = append(namedReq[id], f.ID)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img">`,
		coord(width), coord(height), coord(width), coord(height))
	fmt.Fprintf(&b, `<text class="title" x="%s" y="16">%d connections, %d requests, %d objects in %s s</text>`,
		coord(left), len(e.Conns), e.Requests, e.Objects, report.Fixed(e.WallS, 2))
	bottom := top + rowH*float64(len(conns))
	for _, t := range x.ticks() {
		fmt.Fprintf(&b, `<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/><text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`,
			coord(px(t)), coord(px(t)), coord(top-4), coord(bottom), coord(px(t)), coord(bottom+14), esc(x.tick(t)))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%s" text-anchor="middle">%s</text>`, coord((left+width-right)/2), coord(bottom+30), esc(x.label))
	for i, c := range conns {
		y := top + rowH*float64(i)
		mid := y + rowH/2
		proto := "http"
		if c.TLSVersion != "" {
			proto = "TLS " + c.TLSVersion
		}
		if c.ALPN == "h2" {
			proto += " h2"
		}
		if ids := namedConn[c.ID]; len(ids) > 0 {
			fmt.Fprintf(&b, `<text class="rowlabel named" x="%s" y="%s" text-anchor="end" fill="#b00">conn %d %s %s<title>%s</title></text>`,
				coord(left-6), coord(mid+4), c.ID, esc(c.API), esc(proto), esc(strings.Join(ids, ", ")))
		} else {
			fmt.Fprintf(&b, `<text class="rowlabel" x="%s" y="%s" text-anchor="end">conn %d %s %s</text>`, coord(left-6), coord(mid+4), c.ID, esc(c.API), esc(proto))
		}
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#bbb" stroke-width="2"><title>open %s-%s s, closed by %s</title></line>`,
			coord(px(c.OpenedS)), coord(px(c.ClosedS)), coord(mid), coord(mid), report.Fixed(c.OpenedS, 3), report.Fixed(c.ClosedS, 3), esc(c.ClosedBy))
		if hs := c.HandshakeRTTs * rtt; hs > 0 {
			fmt.Fprintf(&b, `<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="#E69F00"><title>handshake %s round trips</title></rect>`,
				coord(px(c.OpenedS)), coord(y+3), coord(max(px(c.OpenedS+hs)-px(c.OpenedS), 1)), coord(rowH-6), report.Fixed(c.HandshakeRTTs, 1))
		}
		for _, r := range c.Requests {
			from, to := r.ArrivedS-rtt/2, r.DoneS+rtt/2
			if r.IdleBeforeS >= 0.001 {
				fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#666" stroke-dasharray="2 2"><title>idle %s s</title></line>`,
					coord(px(from-r.IdleBeforeS)), coord(px(from)), coord(mid), coord(mid), report.Fixed(r.IdleBeforeS, 3))
			}
			fill := "#999999"
			switch {
			case r.Status >= 400 || r.Status == 0:
				fill = "#D55E00"
			case r.Method == "PUT" || r.Method == "POST":
				fill = "#0072B2"
			case r.Method == "GET":
				fill = "#009E73"
			}
			outline, named := "", ""
			if ids := namedReq[r.ID]; len(ids) > 0 {
				outline, named = ` stroke="#b00" stroke-width="1.5"`, "; named by "+strings.Join(ids, ", ")
			}
			fmt.Fprintf(&b, `<rect class="mark" x="%s" y="%s" width="%s" height="%s" fill="%s"%s><title>%s %s %s %d, %s-%s s%s%s</title></rect>`,
				coord(px(from)), coord(y+2), coord(max(px(to)-px(from), 1.5)), coord(rowH-4), fill, outline,
				esc(r.ID), esc(r.Operation), esc(r.Path), r.Status, report.Fixed(r.ArrivedS, 3), report.Fixed(r.DoneS, 3), esc(headersNote(r)), esc(named))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func headersNote(r document.ExplainRequest) string {
	if len(r.Headers) == 0 {
		return ""
	}
	return "; " + strings.Join(r.Headers, ", ")
}

// whatIfTables are the explained runs' what-if scenarios.
func whatIfTables(runs []HTMLRun) []whatIfView {
	var out []whatIfView
	for _, r := range runs {
		d, ok := r.Doc.(*document.ExplainDocument)
		if !ok || len(d.Explain.WhatIf) == 0 {
			continue
		}
		e := &d.Explain
		v := whatIfView{Label: r.Label, WallS: report.Fixed(e.WallS, 2)}
		for _, s := range e.WhatIf {
			v.Rows = append(v.Rows, []string{s.ID, report.Fixed(s.WallS, 2), report.Fixed(s.SaveS, 2), s.Text})
		}
		out = append(out, v)
	}
	return out
}
