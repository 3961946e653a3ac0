// Package html renders saved runs' documents into one self-contained HTML
// page (objbench report, --report FILE): hand-written SVG figures, the
// explained runs' waterfalls, results over time.
package html

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
)

// QuantileLevels are the levels (0 to 1) at which stored histograms are
// read for the report's quantile plots.
var QuantileLevels = []float64{0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1}

// StepQuantiles are one step's TTFB and total latency (ms) at QuantileLevels.
type StepQuantiles struct {
	TTFBms, TotalMs []float64
}

//go:embed html.tmpl
var htmlTemplate string

// page is parsed on first use, not at start-up: every objbench command
// would pay for it (a millisecond of `objbench runs`).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(htmlTemplate))
})

// WriteHTML writes one self-contained page (inline CSS and SVG, no script,
// no external resource) with the plots and tables of in's runs.
func WriteHTML(w io.Writer, in HTMLInput) error {
	v := buildView(in)
	if err := page().Execute(w, v); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

// view is what html.tmpl renders.
type view struct {
	Title     string
	Generated string
	Runs      []runView
	Latency   []figure // quantile plots
	Phases    []figure
	Sizes     []figure
	Crossover []string
	Conc      []figure
	OverTime  []figure
	Strat     []stratView
	Startup   []figure
	StartTabs []startupTable
	// Waterfalls are explained runs' connections and requests over time.
	Waterfalls []figure
	// WhatIf are explained runs' what-if scenarios.
	WhatIf []whatIfView

	// HasFindings is whether any run has findings or a cost.
	HasFindings bool
}

type figure struct {
	Caption string
	SVG     template.HTML
}

type runView struct {
	ID, Label, Command, Target, Started, Duration string
	Interrupted                                   bool
	Findings                                      []document.Finding
	Cost                                          []string // the cost lines, as the terminal prints them
	Steps                                         []stepRow
	// RateSteps are the open-loop results' rate steps, one table each.
	RateSteps []rateStepsView
	Meta      [][2]string
}

// rateStepsView is one result's rate steps (--rate steps or a ramp) and
// the knee's sentence.
type rateStepsView struct {
	Label string
	Heads []string
	Rows  [][]string
	Knee  string
}

type stepRow struct {
	Cells []string
}

type whatIfView struct {
	Label, WallS string
	Rows         [][]string // scenario, wall s, saving s, what changes
}

type stratView struct {
	Label   string
	Rows    [][]string
	Summary []string
	Plot    template.HTML
}

type startupTable struct {
	Scenario string
	Rows     [][]string
}

func buildView(in HTMLInput) view {
	v := view{Title: in.Title, Generated: in.Generated}
	if v.Title == "" {
		v.Title = "objbench report"
	}
	for _, r := range in.Runs {
		v.Runs = append(v.Runs, runSummary(r))
		rv := v.Runs[len(v.Runs)-1]
		v.HasFindings = v.HasFindings || len(rv.Findings) > 0 || len(rv.Cost) > 0
		if d, ok := r.Doc.(*document.StrategiesDocument); ok {
			v.Strat = append(v.Strat, strategiesView(r.Label, d))
		}
	}
	v.Latency = latencyFigures(in.Runs)
	v.Phases = phaseFigures(in.Runs)
	v.Sizes, v.Crossover = sizeFigures(in.Runs, in.Crossovers)
	v.Conc = concurrencyFigures(in.Runs)
	v.OverTime = overTimeFigures(in.Runs)
	v.Startup, v.StartTabs = startupFigures(in.Runs)
	v.Waterfalls = waterfallFigures(in.Runs)
	v.WhatIf = whatIfTables(in.Runs)
	return v
}

func runSummary(r HTMLRun) runView {
	rv := runView{ID: r.ID, Label: r.Label}
	var started string
	var dur float64
	switch d := r.Doc.(type) {
	case *document.Document:
		rv.Command, rv.Target, started, dur, rv.Interrupted = "run", d.Target.URL, d.StartedAt, d.DurationS, d.Interrupted
		for _, s := range d.Results {
			rv.Steps = append(rv.Steps, stepRow{Cells: []string{
				s.Workload, s.Op, report.FormatSize(s.SizeBytes), strconv.Itoa(s.Concurrency), s.Strategy,
				strconv.FormatInt(s.Count, 10), strconv.FormatInt(s.Errors, 10),
				report.Num(s.TTFBms.P50), report.Num(s.TTFBms.P90), report.Num(s.TTFBms.P99),
				report.Num(s.TotalMs.P50), report.Num(s.TotalMs.P99), mbpsText(s), pct(s.ReusedFraction),
				report.Positive(s.ClientCPUusPerOp),
			}})
			if len(s.RateSteps) > 0 {
				rs := rateStepsView{Label: s.Op + " " + report.FormatSize(s.SizeBytes) + " c=" + strconv.Itoa(s.Concurrency),
					Heads: report.RateStepHeads, Knee: report.KneeSentence(s)}
				for _, st := range s.RateSteps {
					rs.Rows = append(rs.Rows, report.RateStepRow(st))
				}
				rv.RateSteps = append(rv.RateSteps, rs)
			}
		}
	case *document.StrategiesDocument:
		rv.Command, rv.Target, started, dur, rv.Interrupted = "strategies", d.Target.URL, d.StartedAt, d.DurationS, d.Interrupted
	case *document.StartupDocument:
		rv.Command, rv.Target, started, dur, rv.Interrupted = "startup", d.Runtime+" "+d.RuntimeVersion, d.StartedAt, d.DurationS, d.Interrupted
	case *document.ExplainDocument:
		rv.Command, rv.Target, started, dur, rv.Interrupted = "explain", strings.Join(d.Explain.Program, " "), d.StartedAt, d.DurationS, d.Interrupted
	}
	rv.Findings, rv.Cost = runFindings(r)
	rv.Started, rv.Duration = started, report.Num(document.Finite(dur))+" s"
	for _, k := range slices.Sorted(maps.Keys(r.Meta)) {
		rv.Meta = append(rv.Meta, [2]string{k, r.Meta[k]})
	}
	if cs := cutShortOf(r.Doc); cs != nil {
		rv.Meta = append(rv.Meta, [2]string{"cut short", cs.Sentence()})
	}
	return rv
}

func mbpsText(s document.Result) string {
	if !report.HasThroughput(s) {
		return "-"
	}
	return report.Num(s.MBps.P50)
}

func pct(f float64) string { return strconv.FormatFloat(document.Finite(f)*100, 'f', 0, 64) + "%" }

// latencyStep is the step a run's TTFB is shown for: the latency
// workload's GETs, else the first GET of the smallest size.
func latencyStep(d *document.Document) (int, bool) {
	best := -1
	for i, r := range d.Results {
		if r.Op != "get" || r.Count == 0 {
			continue
		}
		if r.Workload == "latency" {
			return i, true
		}
		if best < 0 || r.SizeBytes < d.Results[best].SizeBytes {
			best = i
		}
	}
	return best, best >= 0
}

// quantiles returns (level, ms) points of a step's TTFB or total latency:
// from the stored histograms when present, else the document's percentiles.
func quantiles(r HTMLRun, doc *document.Document, step int, ttfb bool) [][2]float64 {
	if q, found := r.Quantiles[step]; found {
		vals := q.TotalMs
		if ttfb {
			vals = q.TTFBms
		}
		if len(vals) == len(QuantileLevels) {
			pts := make([][2]float64, len(vals))
			for i, v := range vals {
				pts[i] = [2]float64{QuantileLevels[i], v}
			}
			return pts
		}
	}
	d := doc.Results[step].TotalMs
	if ttfb {
		d = doc.Results[step].TTFBms
	}
	return [][2]float64{{0, d.Min}, {0.5, d.P50}, {0.9, d.P90}, {0.99, d.P99}, {0.999, d.P999}, {1, d.Max}}
}

func quantileAxis() axis {
	return axis{label: "quantile (p)", fixed: true, min: 0, max: 1,
		format: func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }}
}

func latencyFigures(runs []HTMLRun) []figure {
	ttfb := chart{title: "Time to first byte, GET", x: quantileAxis(), y: axis{label: "TTFB (ms, log)", log: true}}
	tput := chart{title: "Single-stream throughput, GET", x: quantileAxis(), y: axis{label: "MB/s (log)", log: true}}
	for i, r := range runs {
		doc, ok := r.Doc.(*document.Document)
		if !ok {
			continue
		}
		if s, found := latencyStep(doc); found {
			ttfb.series = append(ttfb.series, series{name: r.Label + " · " + report.FormatSize(doc.Results[s].SizeBytes), points: quantiles(r, doc, s, true), marks: true, color: i})
		}
		// The largest single-stream download: MB/s at quantile p is the
		// size over the total latency at quantile 1-p.
		big := -1
		for j, s := range doc.Results {
			if s.Workload == "throughput" && s.Op == "get" && s.Count > 0 && (big < 0 || s.SizeBytes > doc.Results[big].SizeBytes) {
				big = j
			}
		}
		if big >= 0 {
			size := float64(doc.Results[big].SizeBytes)
			lat := quantiles(r, doc, big, false)
			pts := make([][2]float64, len(lat))
			for k, p := range lat {
				pts[len(lat)-1-k] = [2]float64{1 - p[0], size / 1e3 / p[1]} // bytes/ms/1e3 = MB/s
			}
			tput.series = append(tput.series, series{name: r.Label + " · " + report.FormatSize(int64(size)), points: pts, marks: true, color: i})
		}
	}
	var out []figure
	if len(ttfb.series) > 0 {
		out = append(out, figure{"Time to first byte of GETs by quantile, log scale: the median is at 0.5, the worst cases on the right.", ttfb.svg()})
	}
	if len(tput.series) > 0 {
		out = append(out, figure{"Per-request download throughput by quantile (size over total time), log scale: the slowest transfers on the left.", tput.svg()})
	}
	return out
}

func phaseFigures(runs []HTMLRun) []figure {
	var rows []barRow
	for _, r := range runs {
		doc, ok := r.Doc.(*document.Document)
		if !ok {
			continue
		}
		s, found := latencyStep(doc)
		if !found {
			continue
		}
		res := doc.Results[s]
		for _, g := range []struct {
			name string
			grp  document.Group
		}{{"first", res.FirstRequest}, {"later", res.LaterRequests}} {
			if g.grp.Count == 0 {
				continue
			}
			row := barRow{label: r.Label + " · " + g.name}
			for _, p := range nettrace.PhaseNames() {
				row.segments = append(row.segments, segment{p, g.grp.PhasesMs[p].P50})
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return []figure{{"Median of each phase of a GET, for each worker's first request (a new connection) and the later ones (reused connections).",
		stackedBars("Phases of a GET: first vs later requests (p50)", "ms", nettrace.PhaseNames(), rows)}}
}

func sizeAxis() axis {
	return axis{label: "object size (log, 1 kB = 1000 B)", log: true, decades: true, format: report.HumanBytes}
}

func sizeFigures(runs []HTMLRun, xs []document.Crossover) ([]figure, []string) {
	var figs []figure
	var notes []string
	for _, op := range []string{"get", "put"} {
		c := chart{title: "Object size vs single-stream throughput, " + op, x: sizeAxis(), y: axis{label: "MB/s at p50 (log)", log: true}}
		for i, r := range runs {
			doc, ok := r.Doc.(*document.Document)
			if !ok {
				continue
			}
			var pts [][2]float64
			for _, s := range doc.Results {
				if s.Workload == "throughput" && s.Op == op && s.Count > 0 && s.SizeBytes > 0 {
					pts = append(pts, [2]float64{float64(s.SizeBytes), s.MBps.P50})
				}
			}
			if len(pts) > 0 {
				c.series = append(c.series, series{name: r.Label, points: pts, marks: true, color: i})
			}
		}
		if len(c.series) == 0 {
			continue
		}
		for _, x := range xs {
			if x.Op != op {
				continue
			}
			lo, hi := math.Inf(1), 0.0
			for _, f := range []document.Fit{x.FitA, x.FitB} {
				for _, p := range f.Points {
					lo, hi = min(lo, p[0]), max(hi, p[0])
				}
			}
			for k, f := range []document.Fit{x.FitA, x.FitB} {
				name := []string{x.A, x.B}[k]
				c.series = append(c.series, series{name: fmt.Sprintf("fit %s: %s ms + size / %s MB/s", name, report.Num(f.TTFBms), report.Num(f.MBps)),
					points: fitCurve(f, lo, hi), dashed: true, color: runIndex(runs, []string{x.ARunID, x.BRunID}[k])})
			}
			if x.SizeBytes > 0 {
				c.vlines = append(c.vlines, vline{x.SizeBytes, "crossover " + report.HumanBytes(x.SizeBytes)})
				notes = append(notes, fmt.Sprintf("%s: %s finishes sooner for objects larger than %s (fits: %s = %s ms + size / %s MB/s; %s = %s ms + size / %s MB/s).",
					op, x.Faster, report.HumanBytes(x.SizeBytes), x.A, report.Num(x.FitA.TTFBms), report.Num(x.FitA.MBps), x.B, report.Num(x.FitB.TTFBms), report.Num(x.FitB.MBps)))
			} else {
				notes = append(notes, fmt.Sprintf("%s: the fitted lines of %s and %s do not cross at a positive size.", op, x.A, x.B))
			}
		}
		figs = append(figs, figure{"Median per-request throughput by object size (" + op + "); dashed lines are fitted models total = TTFB + size / rate, the vertical line the crossover size.", c.svg()})
	}
	return figs, notes
}

func runIndex(runs []HTMLRun, id string) int {
	for i, r := range runs {
		if r.ID == id {
			return i
		}
	}
	return 0
}

// fitCurve samples a fit's MB/s between lo and hi bytes, log-spaced.
func fitCurve(f document.Fit, lo, hi float64) [][2]float64 {
	if !(lo > 0 && hi > lo) || !(f.MBps > 0) {
		return nil
	}
	const n = 24
	pts := make([][2]float64, 0, n+1)
	for i := 0; i <= n; i++ {
		size := lo * math.Pow(hi/lo, float64(i)/n)
		totalMs := f.TTFBms + size/(f.MBps*1e3)
		pts = append(pts, [2]float64{size, size / 1e3 / totalMs})
	}
	return pts
}

func concurrencyFigures(runs []HTMLRun) []figure {
	c := chart{title: "Aggregate throughput vs concurrency", x: axis{label: "concurrent workers"}, y: axis{label: "aggregate MB/s"}}
	k := 0
	for i, r := range runs {
		doc, ok := r.Doc.(*document.Document)
		if !ok {
			continue
		}
		for _, op := range []string{"put", "get"} {
			var pts [][2]float64
			size := int64(0)
			for _, s := range doc.Results {
				if s.Workload == "concurrency" && s.Op == op && s.Count > 0 {
					pts = append(pts, [2]float64{float64(s.Concurrency), s.AggregateMBps})
					size = s.SizeBytes
				}
			}
			if len(pts) > 0 {
				c.series = append(c.series, series{name: fmt.Sprintf("%s · %s %s", r.Label, op, report.FormatSize(size)), points: pts, marks: true, color: i, dashed: op == "put"})
				k++
			}
		}
	}
	if k == 0 {
		return nil
	}
	return []figure{{"All bytes moved by all workers over the step's wall time, by the number of concurrent workers (dashed: uploads).", c.svg()}}
}

func strategiesView(label string, d *document.StrategiesDocument) stratView {
	sv := stratView{Label: label, Summary: d.Summary}
	var ops []string
	var rows []barRow
	for _, s := range d.Strategies {
		if !slices.Contains(ops, s.Op) {
			ops = append(ops, s.Op)
		}
		if !s.Available {
			sv.Rows = append(sv.Rows, []string{s.Strategy, s.Op, "-", "-", "-", "-", "-", "-", "-", "unavailable: " + s.Reason})
			continue
		}
		sv.Rows = append(sv.Rows, []string{s.Strategy, s.Op, strconv.Itoa(s.Objects) + " × " + report.FormatSize(s.SizeBytes),
			report.Fixed(s.WallS, 2), report.Fixed(s.ObjectsPerS, 1), report.Fixed(s.P50ms, 1), report.Fixed(s.P99ms, 1),
			strconv.FormatInt(s.Connections, 10), report.Fixed(s.RequestsPerObject, 2), report.Fixed(s.Speedup, 1) + "x"})
		rows = append(rows, barRow{label: s.Strategy + " · " + s.Op + " " + report.FormatSize(s.SizeBytes), segments: []segment{{s.Op, s.WallS}}})
	}
	if len(rows) > 0 {
		sv.Plot = stackedBars("Wall time per strategy (s, shorter is better)", "s", ops, rows)
	}
	return sv
}

func startupFigures(runs []HTMLRun) ([]figure, []startupTable) {
	var scenarios []string
	for _, r := range runs {
		d, ok := r.Doc.(*document.StartupDocument)
		if !ok {
			continue
		}
		for _, s := range d.Scenarios {
			if !slices.Contains(scenarios, s.Scenario) {
				scenarios = append(scenarios, s.Scenario)
			}
		}
	}
	var figs []figure
	var tabs []startupTable
	for _, sc := range scenarios {
		// Common bins over every environment's values, the top 1% of each stripped.
		type env struct {
			name string
			idx  int
			vals []float64
			s    document.StartupScenario
		}
		var envs []env
		var all []float64
		for i, r := range runs {
			d, ok := r.Doc.(*document.StartupDocument)
			if !ok {
				continue
			}
			for _, s := range d.Scenarios {
				if s.Scenario == sc {
					v := document.TrimTop(s.WallSamplesMs)
					envs = append(envs, env{r.Label, i, v, s})
					all = append(all, v...)
				}
			}
		}
		tab := startupTable{Scenario: sc}
		for _, e := range envs {
			w, t := e.s.WallMs, e.s.WallMsTrimmed
			tab.Rows = append(tab.Rows, []string{e.name, strconv.Itoa(e.s.Runs), strconv.Itoa(e.s.Timeouts), strconv.Itoa(e.s.Failures),
				report.Num(w.Median), report.Num(w.Mean), report.Num(w.Stddev), report.Num(w.P90), report.Num(w.P99), report.Num(w.Min), report.Num(w.Max),
				report.Num(t.Median), report.Num(t.Stddev), report.Num(e.s.LoadMs.Median)})
		}
		tabs = append(tabs, tab)
		if len(all) == 0 {
			continue
		}
		bins := document.Histogram(all, document.HistBins)
		c := chart{title: "Start-up wall time, " + sc, x: axis{label: "wall time (ms)", tight: true}, y: axis{label: "% of runs"}}
		for _, e := range envs {
			if len(e.vals) == 0 {
				continue
			}
			pts := make([][2]float64, len(bins))
			for k, b := range bins {
				n := 0
				for _, v := range e.vals {
					if v >= b.FromMs && (v < b.ToMs || k == len(bins)-1 && v <= b.ToMs) {
						n++
					}
				}
				pts[k] = [2]float64{(b.FromMs + b.ToMs) / 2, 100 * float64(n) / float64(len(e.vals))}
			}
			c.series = append(c.series, series{name: e.name, points: pts, marks: true, color: e.idx})
		}
		figs = append(figs, figure{"Distribution of the child's wall time from exec to exit (" + sc + "), top 1% of each environment stripped, as seed 002's charts.", c.svg()})
	}
	return figs, tabs
}

// cutShortOf is a run's note of being cut short (nil: finished, or no document).
func cutShortOf(d document.Doc) *document.CutShort {
	if d == nil {
		return nil
	}
	return d.Head().CutShort
}
