package terminal

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
)

// WriteSummary writes what a person reads first, one screen for the quick
// suite: per workload one table with a step per row (count, errors, TTFB
// and total p50/p99, MB/s, requests per op, reuse), then a cold request
// against a warm one by phase, the findings and the cost.
func WriteSummary(w io.Writer, d *document.Document) error {
	ew := &errWriter{w: w}
	header(ew, d)
	heading := columnNamer(d.Results)
	for _, wl := range workloads(d.Results) {
		heads := []string{wl, "count", "errors", "ttfb p50", "ttfb p99", "total p50", "total p99", "MB/s", "agg MB/s", "req/op", "reused"}
		var rows [][]string
		for _, r := range d.Results {
			if r.Workload != wl {
				continue
			}
			mb, agg := "-", "-"
			if report.HasThroughput(r) {
				mb, agg = cell(r.Count, r.MBps.P50), cell(r.Count, r.AggregateMBps)
			}
			rows = append(rows, []string{heading(r), strconv.FormatInt(r.Count, 10), strconv.FormatInt(r.Errors, 10),
				cell(r.Count, r.TTFBms.P50), cell(r.Count, r.TTFBms.P99), cell(r.Count, r.TotalMs.P50), cell(r.Count, r.TotalMs.P99),
				mb, agg, cell(r.Count, r.RequestsPerOp), fraction(r.Count, r.ReusedFraction)})
		}
		fmt.Fprintln(ew)
		leftTable(ew, heads, rows)
	}
	writeRateSteps(ew, d)
	writeColdWarm(ew, d)
	// One screen: the most severe findings; --detail and --json carry all.
	fs := summaryCut(d.Findings)
	WriteFindings(ew, fs)
	if n := len(d.Findings) - len(fs); n > 0 {
		fmt.Fprintf(ew, "  (%d more: --detail or --json)\n", n)
	}
	report.WriteExpress(ew, d.Express)
	report.WriteCost(ew, d.Cost)
	return ew.err
}

// The summary prints the ranked findings up to summaryFindings of them and
// summaryFindingLines wrapped lines, but always the first minFindings: a
// finding that explains a CPU limit takes five lines, and six of those
// would push the tables off the screen.
const (
	summaryFindings     = 6
	summaryFindingLines = 16
	minFindings         = 3
)

// summaryCut is the ranked prefix of fs that fits the summary's budget.
func summaryCut(fs []document.Finding) []document.Finding {
	lines := 0
	for i, f := range fs {
		lines += len(wrap(f.Text, findingWidth))
		if i >= summaryFindings || i >= minFindings && lines > summaryFindingLines {
			return fs[:i]
		}
	}
	return fs
}

// WriteDetail writes every table: per workload TTFB and total latency
// quantiles, per-request and aggregate throughput, requests and errors,
// and the phases of first and later requests, each with a step per row
// and the quantiles as columns, so that no table is cut however many
// steps there are; then the cold-versus-warm table, findings and cost.
func WriteDetail(w io.Writer, d *document.Document) error {
	ew := &errWriter{w: w}
	header(ew, d)
	heading := columnNamer(d.Results)
	for _, wl := range workloads(d.Results) {
		var steps []document.Result
		for _, r := range d.Results {
			if r.Workload == wl {
				steps = append(steps, r)
			}
		}
		distHeads := func(title string) []string {
			h := []string{title}
			for _, st := range distStats {
				h = append(h, st.name)
			}
			return h
		}
		distTable := func(title string, get func(document.Result) document.Dist) {
			var rows [][]string
			for _, r := range steps {
				row := []string{heading(r)}
				for _, st := range distStats {
					row = append(row, cell(r.Count, st.get(get(r))))
				}
				rows = append(rows, row)
			}
			fmt.Fprintln(ew)
			leftTable(ew, distHeads(title), rows)
		}
		distTable(wl+": time to first byte (ms)", func(r document.Result) document.Dist { return r.TTFBms })
		distTable(wl+": total latency (ms)", func(r document.Result) document.Dist { return r.TotalMs })

		var tput [][]string
		for _, r := range steps {
			if !report.HasThroughput(r) {
				tput = append(tput, []string{heading(r), "-", "-", "-", "-"})
				continue
			}
			tput = append(tput, []string{heading(r), cell(r.Count, r.MBps.P50), cell(r.Count, r.MBps.P90), cell(r.Count, r.MBps.P99), cell(r.Count, r.AggregateMBps)})
		}
		fmt.Fprintln(ew)
		leftTable(ew, []string{wl + ": throughput (MB/s)", "p50", "p90", "p99", "aggregate"}, tput)

		classes := report.ErrorClasses(steps)
		heads := []string{wl + ": requests", "count", "errors"}
		for _, c := range classes {
			heads = append(heads, "error "+c)
		}
		heads = append(heads, "requests/op", "retries", "silent retries", "reconnects")
		// Whether "Expect: 100-continue" went out, and whether the client
		// waited for it: an SDK can send the header and not wait.
		expect := slices.ContainsFunc(steps, func(r document.Result) bool { return r.ExpectSent > 0 })
		if expect {
			heads = append(heads, "expect sent", "expect waited")
		}
		heads = append(heads, "wall s")
		cpu := slices.ContainsFunc(steps, func(r document.Result) bool { return r.ClientCPUusPerOp > 0 })
		if cpu {
			heads = append(heads, "client cpu µs/op", "client cpu s/GB")
		}
		var req [][]string
		for _, r := range steps {
			row := []string{heading(r), strconv.FormatInt(r.Count, 10), strconv.FormatInt(r.Errors, 10)}
			for _, c := range classes {
				row = append(row, strconv.FormatInt(r.ErrorsByClass[c], 10))
			}
			row = append(row, cell(r.Count, r.RequestsPerOp), strconv.FormatInt(r.Retries, 10), strconv.FormatInt(r.SilentRetries, 10),
				strconv.FormatInt(r.Reconnects, 10))
			if expect {
				row = append(row, fraction(r.Count, r.ExpectSent), fraction(r.Count, r.ExpectWaited))
			}
			row = append(row, report.Num(document.Finite(r.WallS)))
			if cpu {
				row = append(row, report.Positive(r.ClientCPUusPerOp), report.Positive(r.ClientCPUsPerGB))
			}
			req = append(req, row)
		}
		fmt.Fprintln(ew)
		leftTable(ew, heads, req)

		ph := []string{wl + ": phases, p50 ms"}
		ph = append(ph, phaseNames...)
		ph = append(ph, "ttfb", "total", "reused", "count")
		var rows [][]string
		for _, r := range steps {
			rows = append(rows, phaseRow(heading(r)+" first", r.FirstRequest), phaseRow(heading(r)+" later", r.LaterRequests))
		}
		fmt.Fprintln(ew)
		leftTable(ew, ph, rows)
	}
	writeRateSteps(ew, d)
	writeColdWarm(ew, d)
	WriteFindings(ew, d.Findings)
	report.WriteExpress(ew, d.Express)
	report.WriteCost(ew, d.Cost)
	return ew.err
}

// fraction prints v with two decimals, or "-" when no request succeeded.
func fraction(count int64, v float64) string {
	if count == 0 {
		return "-"
	}
	return strconv.FormatFloat(document.Finite(v), 'f', 2, 64)
}

// phaseRow is one group's phase p50s, TTFB, total, reuse and count.
func phaseRow(name string, g document.Group) []string {
	row := []string{name}
	for _, p := range phaseNames {
		row = append(row, cell(g.Count, g.PhasesMs[p].P50))
	}
	return append(row, cell(g.Count, g.TTFBms.P50), cell(g.Count, g.TotalMs.P50), fraction(g.Count, g.ReusedFraction), strconv.FormatInt(g.Count, 10))
}

// writeColdWarm prints the phases of a worker's first request against its
// later ones, for the step that shows it best.
func writeColdWarm(w io.Writer, d *document.Document) {
	r := analysis.ColdStep(d)
	if r == nil {
		return
	}
	name := columnNamer(d.Results)(*r)
	fmt.Fprintf(w, "\ncold vs warm, %s %s: a worker's first request (%d) against its later ones (%d), p50 ms\n", r.Workload, name, r.FirstRequest.Count, r.LaterRequests.Count)
	heads := []string{""}
	heads = append(heads, phaseNames...)
	heads = append(heads, "ttfb", "total", "reused")
	first, later := phaseRow("first", r.FirstRequest), phaseRow("later", r.LaterRequests)
	leftTable(w, heads, [][]string{first[:len(first)-1], later[:len(later)-1]})
}

// findingWidth is the width findings wrap to.
const findingWidth = 104

// WriteFindings prints ranked findings, one paragraph each, wrapped.
func WriteFindings(w io.Writer, fs []document.Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nfindings")
	for _, f := range fs {
		lines := wrap(f.Text, findingWidth)
		fmt.Fprintf(w, "  %-5s %s\n", f.Severity, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "        %s\n", l)
		}
	}
}

// wrap breaks s into lines of at most width characters, at spaces.
func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
