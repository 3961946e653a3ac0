package html

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// The report's plots are hand-written SVG: a few chart kinds, each drawn
// with class="plot" on the <svg> and class="mark" on every drawn data mark
// (point, bar), so that a browser test can check that each plot drew
// something. Every text from a target goes through esc.

// palette is colour-blind safe (Okabe-Ito), one colour per series.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}

func color(i int) string { return palette[i%len(palette)] }

func esc(s string) string { return template.HTMLEscapeString(s) }

// num formats a coordinate compactly and deterministically (golden files).
func coord(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// axis maps data values to pixels, linearly or on a log scale.
type axis struct {
	label string
	log   bool
	// format prints a tick value; nil uses fmtTick.
	format   func(float64) string
	min, max float64
	set      bool
	// fixed keeps min and max as given (e.g. quantile 0 to 1).
	fixed bool
	// decades puts log ticks at powers of ten only (wide labels).
	decades bool
	// tight starts a linear axis at a tick just below the data instead of
	// at zero: a distribution around 1 s squeezed into the last tenth of
	// a 0-to-1.1 s axis shows no shape.
	tight bool
	// step is the linear tick spacing finish chose the range by.
	step float64
}

func (a *axis) include(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || a.fixed || (a.log && v <= 0) {
		return
	}
	if !a.set {
		a.min, a.max, a.set = v, v, true
		return
	}
	a.min, a.max = min(a.min, v), max(a.max, v)
}

// finish widens the range to whole ticks (log: decades' 1-2-5 steps).
func (a *axis) finish() {
	if !a.set && !a.fixed {
		a.min, a.max = 0, 1
		if a.log {
			a.min, a.max = 1, 10
		}
	}
	if a.fixed {
		return
	}
	if a.log {
		lo, hi := math.Floor(math.Log10(a.min)), math.Ceil(math.Log10(a.max))
		if hi <= lo {
			hi = lo + 1
		}
		a.min, a.max = math.Pow(10, lo), math.Pow(10, hi)
		return
	}
	if a.min > 0 && !a.tight {
		a.min = 0
	}
	if a.max <= a.min {
		a.max = a.min + 1
	}
	step := niceStep((a.max - a.min) / 5)
	if a.tight {
		a.min = math.Floor(a.min/step) * step
	}
	a.max = math.Ceil(a.max/step) * step
	a.step = step
}

func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// frac is v's position along the axis, 0 to 1.
func (a *axis) frac(v float64) float64 {
	if a.log {
		if v <= 0 {
			return 0
		}
		return (math.Log10(v) - math.Log10(a.min)) / (math.Log10(a.max) - math.Log10(a.min))
	}
	return (v - a.min) / (a.max - a.min)
}

func (a *axis) ticks() []float64 {
	var t []float64
	if a.log {
		decades := math.Log10(a.max) - math.Log10(a.min)
		mults := []float64{1, 2, 5}
		if decades > 4 || a.decades {
			mults = []float64{1}
		}
		for d := a.min; d <= a.max*1.0001; d *= 10 {
			for _, m := range mults {
				if v := d * m; v <= a.max*1.0001 {
					t = append(t, v)
				}
			}
		}
		return t
	}
	step := a.step
	if step <= 0 {
		step = niceStep((a.max - a.min) / 5)
	}
	for v := a.min; v <= a.max+step/1000; v += step {
		t = append(t, v)
	}
	return t
}

func (a *axis) tick(v float64) string {
	if a.format != nil {
		return a.format(v)
	}
	return fmtTick(v)
}

func fmtTick(v float64) string {
	switch av := math.Abs(v); {
	case av == 0:
		return "0"
	case av >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case av >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	default:
		// Three significant digits, never an exponent.
		r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
}

// series is one line of points; every point is a mark.
type series struct {
	name   string
	points [][2]float64
	dashed bool
	// marks false draws the line only (a fitted model).
	marks bool
	color int
}

// vline is a vertical marker such as a crossover size.
type vline struct {
	x     float64
	label string
}

// chart is an x/y line chart.
type chart struct {
	title  string
	x, y   axis
	series []series
	vlines []vline
}

const (
	plotW, plotH                     = 640, 360
	padL, padR, padT, padB, legendRH = 64, 32, 28, 44, 16
)

func (c *chart) svg() template.HTML {
	for _, s := range c.series {
		for _, p := range s.points {
			c.x.include(p[0])
			c.y.include(p[1])
		}
	}
	for _, v := range c.vlines {
		c.x.include(v.x)
	}
	c.x.finish()
	c.y.finish()
	legendH := legendRH * len(c.series)
	h := plotH + legendH
	iw, ih := float64(plotW-padL-padR), float64(plotH-padT-padB)
	px := func(v float64) float64 { return padL + c.x.frac(v)*iw }
	py := func(v float64) float64 { return padT + (1-c.y.frac(v))*ih }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, plotW, h, plotW, h, esc(c.title))
	fmt.Fprintf(&b, `<text class="title" x="%d" y="18">%s</text>`, padL, esc(c.title))
	// Grid and ticks.
	for _, t := range c.y.ticks() {
		y := py(t)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/><text class="tick" x="%d" y="%s" text-anchor="end">%s</text>`,
			padL, plotW-padR, coord(y), coord(y), padL-4, coord(y+4), esc(c.y.tick(t)))
	}
	for _, t := range c.x.ticks() {
		x := px(t)
		fmt.Fprintf(&b, `<line class="grid" x1="%s" x2="%s" y1="%d" y2="%d"/><text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>`,
			coord(x), coord(x), padT, plotH-padB, coord(x), plotH-padB+14, esc(c.x.tick(t)))
	}
	fmt.Fprintf(&b, `<rect class="frame" x="%d" y="%d" width="%s" height="%s"/>`, padL, padT, coord(iw), coord(ih))
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%d" text-anchor="middle">%s</text>`, coord(padL+iw/2), plotH-8, esc(c.x.label))
	fmt.Fprintf(&b, `<text class="axis" transform="translate(14 %s) rotate(-90)" text-anchor="middle">%s</text>`, coord(padT+ih/2), esc(c.y.label))
	for _, v := range c.vlines {
		x := px(v.x)
		fmt.Fprintf(&b, `<line class="vline" x1="%s" x2="%s" y1="%d" y2="%d"/><text class="vlabel" x="%s" y="%d">%s</text>`,
			coord(x), coord(x), padT, plotH-padB, coord(x+4), padT+12, esc(v.label))
	}
	for _, s := range c.series {
		col := color(s.color)
		var pts []string
		for _, p := range s.points {
			if ok(p[1]) && ok(p[0]) && (!c.y.log || p[1] > 0) && (!c.x.log || p[0] > 0) {
				pts = append(pts, coord(px(p[0]))+","+coord(py(p[1])))
			}
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline class="line" fill="none" stroke="%s"%s points="%s"/>`, col, dash, strings.Join(pts, " "))
		}
		if s.marks {
			for _, p := range s.points {
				if !ok(p[1]) || !ok(p[0]) || (c.y.log && p[1] <= 0) || (c.x.log && p[0] <= 0) {
					continue
				}
				fmt.Fprintf(&b, `<circle class="mark" cx="%s" cy="%s" r="3" fill="%s"><title>%s: %s, %s</title></circle>`,
					coord(px(p[0])), coord(py(p[1])), col, esc(s.name), esc(c.x.tick(p[0])), esc(fmtTick(p[1])))
			}
		}
	}
	for i, s := range c.series {
		y := plotH + i*legendRH + 4
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text class="legend" x="%d" y="%d">%s</text>`,
			padL, padL+24, y, y, color(s.color), dash, padL+30, y+4, esc(s.name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above is escaped
}

func ok(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// segment is one part of a stacked bar.
type segment struct {
	name  string
	value float64
}

// barRow is one stacked horizontal bar.
type barRow struct {
	label    string
	segments []segment
}

// stackedBars draws horizontal bars made of segments coloured by name
// (keys gives the colour order and the legend).
func stackedBars(title, unit string, keys []string, rows []barRow) template.HTML {
	const rowH, labelW = 22, 220
	maxV := 0.0
	for _, r := range rows {
		sum := 0.0
		for _, s := range r.segments {
			if ok(s.value) && s.value > 0 {
				sum += s.value
			}
		}
		maxV = max(maxV, sum)
	}
	x := axis{label: unit}
	x.include(0)
	x.include(maxV)
	x.finish()
	iw := float64(plotW - labelW - padR)
	h := padT + rowH*len(rows) + 40 + legendRH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, plotW, h, plotW, h, esc(title))
	fmt.Fprintf(&b, `<text class="title" x="%d" y="18">%s</text>`, labelW, esc(title))
	axisY := padT + rowH*len(rows)
	for _, t := range x.ticks() {
		px := labelW + x.frac(t)*iw
		fmt.Fprintf(&b, `<line class="grid" x1="%s" x2="%s" y1="%d" y2="%d"/><text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>`,
			coord(px), coord(px), padT, axisY, coord(px), axisY+14, esc(fmtTick(t)))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%s" y="%d" text-anchor="middle">%s</text>`, coord(labelW+iw/2), axisY+30, esc(unit))
	colorOf := map[string]int{}
	for i, k := range keys {
		colorOf[k] = i
	}
	for i, r := range rows {
		y := padT + i*rowH
		fmt.Fprintf(&b, `<text class="rowlabel" x="%d" y="%d" text-anchor="end">%s</text>`, labelW-6, y+15, esc(r.label))
		at := 0.0
		for _, s := range r.segments {
			if !ok(s.value) || s.value <= 0 {
				continue
			}
			w := x.frac(s.value) * iw
			fmt.Fprintf(&b, `<rect class="mark" x="%s" y="%d" width="%s" height="%d" fill="%s"><title>%s %s: %s ms</title></rect>`,
				coord(labelW+at), y+3, coord(max(w, 0.5)), rowH-6, color(colorOf[s.name]), esc(r.label), esc(s.name), esc(fmtTick(s.value)))
			at += w
		}
	}
	ly := axisY + 44
	lx := labelW
	for i, k := range keys {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text class="legend" x="%d" y="%d">%s</text>`, lx, ly-9, color(i), lx+14, ly, esc(k))
		lx += 14 + 8*len(k) + 12
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text above is escaped
}
