package report

import (
	"github.com/objbench/objbench/internal/document"

	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/objbench/objbench/internal/units"
)

// maxColumns keeps tables readable: a workload with more steps is split
// into tables of at most this many step columns.
const maxColumns = 6

// phaseNames are the phases of the JSON contract, in order.
var phaseNames = []string{"dns", "connect", "tls", "send", "wait100", "wait", "recv"}

// FormatSize prints a byte count in binary units: 0B, 1KiB, 32MiB, 1500B.
func FormatSize(n int64) string { return units.FormatSize(n) }

// WriteText writes the terminal tables, laid out like seed 001 (percentile
// rows, one column per step): per workload, TTFB and total latency,
// per-request and aggregate throughput, counts and errors, and the phase
// table of the first request of each worker against the later ones.
func WriteText(w io.Writer, d *document.Document) error {
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
		for chunk := range slices.Chunk(steps, maxColumns) {
			workloadTables(ew, wl, chunk, heading)
		}
		// Two columns per step: first and later.
		for chunk := range slices.Chunk(steps, maxColumns/2) {
			phaseTable(ew, wl, chunk, heading)
		}
	}
	return ew.err
}

func header(w io.Writer, d *document.Document) {
	command := "run"
	if d.Probe != nil {
		command = "probe"
	}
	fmt.Fprintf(w, "objbench %s %s: %s (%s", command, d.RunID, d.Target.URL, d.Target.Provider)
	if d.Target.Endpoint != "" {
		fmt.Fprintf(w, " at %s", d.Target.Endpoint)
	}
	if d.Lab != nil {
		fmt.Fprintf(w, ", lab %s", d.Lab.Profile)
	}
	fmt.Fprintf(w, "), %s s", num(document.Finite(d.DurationS)))
	if d.StartedAt != "" {
		fmt.Fprintf(w, " from %s", d.StartedAt)
	}
	if d.Interrupted {
		fmt.Fprint(w, " (interrupted: partial results)")
	}
	fmt.Fprintln(w)
	if l := d.Lab; l != nil {
		tls := "plain HTTP"
		if l.TLS {
			tls = "TLS"
		}
		fmt.Fprintf(w, "lab: %s API, profile %s, round trip %s ms", l.API, l.Profile, num(document.Finite(l.RTTms)))
		if l.JitterMs > 0 {
			fmt.Fprintf(w, " ± %s ms", num(document.Finite(l.JitterMs)))
		}
		if l.Bandwidth != "" {
			fmt.Fprintf(w, ", %s", l.Bandwidth)
		}
		fmt.Fprintf(w, ", %s\n", tls)
	}
	if p := d.Probe; p != nil {
		fmt.Fprintf(w, "round %d of this process: requests seq %d to %d", p.Round, p.SeqFirst, p.SeqLast)
		if p.SeqFirst > 0 {
			fmt.Fprint(w, " (the client is warm from earlier rounds: the first request may reuse a connection)")
		}
		if p.Failed > 0 {
			fmt.Fprintf(w, ", %d failed", p.Failed)
		}
		fmt.Fprintln(w)
	}
	if s := strategies(d.Results); len(s) == 1 {
		fmt.Fprintf(w, "connections: %s\n", s[0])
	} else if len(s) > 1 {
		fmt.Fprintf(w, "connections: %s (per column)\n", strings.Join(s, ", "))
	}
	if len(d.Results) == 0 {
		fmt.Fprintln(w, "no results")
	}
}

// workloads lists workload names in first-seen order.
func workloads(rs []document.Result) []string {
	var out []string
	for _, r := range rs {
		if !slices.Contains(out, r.Workload) {
			out = append(out, r.Workload)
		}
	}
	return out
}

// strategies lists the connection strategies in first-seen order.
func strategies(rs []document.Result) []string {
	var out []string
	for _, r := range rs {
		if !slices.Contains(out, r.Strategy) {
			out = append(out, r.Strategy)
		}
	}
	return out
}

// columnNamer returns the column heading of a step: "get 1KiB",
// "put 32MiB c=5", and the strategy too when the document mixes several.
func columnNamer(rs []document.Result) func(document.Result) string {
	mixed := len(strategies(rs)) > 1
	return func(r document.Result) string {
		s := r.Op + " " + FormatSize(r.SizeBytes)
		if r.Workload == "concurrency" || r.Concurrency > 1 {
			s += " c=" + strconv.Itoa(r.Concurrency)
		}
		if mixed {
			s += " " + r.Strategy
		}
		return s
	}
}

// stat names one row of a distribution table.
type stat struct {
	name string
	get  func(document.Dist) float64
}

var distStats = []stat{
	{"p50", func(d document.Dist) float64 { return d.P50 }},
	{"p90", func(d document.Dist) float64 { return d.P90 }},
	{"p99", func(d document.Dist) float64 { return d.P99 }},
	{"p99.9", func(d document.Dist) float64 { return d.P999 }},
	{"min", func(d document.Dist) float64 { return d.Min }},
	{"max", func(d document.Dist) float64 { return d.Max }},
	{"mean", func(d document.Dist) float64 { return d.Mean }},
	{"stddev", func(d document.Dist) float64 { return d.Stddev }},
}

// hasThroughput reports whether MB/s means something for r.
func hasThroughput(r document.Result) bool {
	return r.SizeBytes > 0 && (r.Op == "get" || r.Op == "put")
}

func workloadTables(w io.Writer, wl string, steps []document.Result, heading func(document.Result) string) {
	heads := make([]string, len(steps))
	for i, r := range steps {
		heads[i] = heading(r)
	}
	row := func(name string, f func(document.Result) string) []string {
		out := []string{name}
		for _, r := range steps {
			out = append(out, f(r))
		}
		return out
	}
	distRows := func(get func(document.Result) document.Dist) [][]string {
		var rows [][]string
		for _, st := range distStats {
			rows = append(rows, row(st.name, func(r document.Result) string { return cell(r.Count, st.get(get(r))) }))
		}
		return rows
	}
	fmt.Fprintf(w, "\n%s: time to first byte (ms)\n", wl)
	table(w, [][]string{heads}, distRows(func(r document.Result) document.Dist { return r.TTFBms }))
	fmt.Fprintf(w, "\n%s: total latency (ms)\n", wl)
	table(w, [][]string{heads}, distRows(func(r document.Result) document.Dist { return r.TotalMs }))

	if slices.ContainsFunc(steps, hasThroughput) {
		fmt.Fprintf(w, "\n%s: throughput (MB/s; per request at the total latency percentile, and aggregate)\n", wl)
		mb := func(name string, f func(document.Result) float64) []string {
			return row(name, func(r document.Result) string {
				if !hasThroughput(r) {
					return "-"
				}
				return cell(r.Count, f(r))
			})
		}
		table(w, [][]string{heads}, [][]string{
			mb("p50", func(r document.Result) float64 { return r.MBps.P50 }),
			mb("p90", func(r document.Result) float64 { return r.MBps.P90 }),
			mb("p99", func(r document.Result) float64 { return r.MBps.P99 }),
			mb("aggregate", func(r document.Result) float64 { return r.AggregateMBps }),
		})
	}

	fmt.Fprintf(w, "\n%s: requests\n", wl)
	rows := [][]string{
		row("count", func(r document.Result) string { return strconv.FormatInt(r.Count, 10) }),
		row("errors", func(r document.Result) string { return strconv.FormatInt(r.Errors, 10) }),
	}
	for _, class := range errorClasses(steps) {
		rows = append(rows, row("error "+class, func(r document.Result) string { return strconv.FormatInt(r.ErrorsByClass[class], 10) }))
	}
	rows = append(rows,
		row("requests/op", func(r document.Result) string { return cell(r.Count, r.RequestsPerOp) }),
		row("retries", func(r document.Result) string { return strconv.FormatInt(r.Retries, 10) }),
		row("reconnects", func(r document.Result) string { return strconv.FormatInt(r.Reconnects, 10) }),
	)
	// Whether "Expect: 100-continue" went out, and whether the client
	// waited for it: an SDK can send the header and not wait.
	if slices.ContainsFunc(steps, func(r document.Result) bool { return r.ExpectSent > 0 }) {
		rows = append(rows,
			row("expect sent", func(r document.Result) string { return fraction(r.Count, r.ExpectSent) }),
			row("expect waited", func(r document.Result) string { return fraction(r.Count, r.ExpectWaited) }))
	}
	rows = append(rows, row("wall s", func(r document.Result) string { return num(document.Finite(r.WallS)) }))
	if slices.ContainsFunc(steps, func(r document.Result) bool { return r.ClientCPUusPerOp > 0 }) {
		rows = append(rows,
			row("client cpu µs/op", func(r document.Result) string { return positive(r.ClientCPUusPerOp) }),
			row("client cpu s/GB", func(r document.Result) string { return positive(r.ClientCPUsPerGB) }))
	}
	table(w, [][]string{heads}, rows)
}

// errorClasses lists, sorted, the error classes seen in steps.
func errorClasses(steps []document.Result) []string {
	var out []string
	for _, r := range steps {
		for k, v := range r.ErrorsByClass {
			if v > 0 && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// phaseTable prints the p50 of every phase for the first request of each
// worker next to the later ones, and how many of each reused a connection.
func phaseTable(w io.Writer, wl string, steps []document.Result, heading func(document.Result) string) {
	fmt.Fprintf(w, "\n%s: phases, p50 ms (first request of each worker | later requests)\n", wl)
	names := make([]string, 0, 2*len(steps))
	kinds := make([]string, 0, 2*len(steps))
	for _, r := range steps {
		names = append(names, heading(r), "")
		kinds = append(kinds, "first p50", "later p50")
	}
	var rows [][]string
	both := func(name string, f func(document.Group) string) {
		row := []string{name}
		for _, r := range steps {
			row = append(row, f(r.FirstRequest), f(r.LaterRequests))
		}
		rows = append(rows, row)
	}
	for _, ph := range phaseNames {
		both(ph, func(g document.Group) string { return cell(g.Count, g.PhasesMs[ph].P50) })
	}
	both("ttfb", func(g document.Group) string { return cell(g.Count, g.TTFBms.P50) })
	both("total", func(g document.Group) string { return cell(g.Count, g.TotalMs.P50) })
	both("reused", func(g document.Group) string {
		if g.Count == 0 {
			return "-"
		}
		return strconv.FormatFloat(document.Finite(g.ReusedFraction), 'f', 2, 64)
	})
	both("count", func(g document.Group) string { return strconv.FormatInt(g.Count, 10) })
	table(w, [][]string{names, kinds}, rows)
}

// fraction prints v with two decimals, or "-" when no request succeeded.
func fraction(count int64, v float64) string {
	if count == 0 {
		return "-"
	}
	return strconv.FormatFloat(document.Finite(v), 'f', 2, 64)
}

// positive prints v, or "-" when it was not measured (zero).
func positive(v float64) string {
	if document.Finite(v) <= 0 {
		return "-"
	}
	return num(v)
}

// cell prints v, or "-" when no request succeeded.
func cell(count int64, v float64) string {
	if count == 0 {
		return "-"
	}
	return num(v)
}

// num prints milliseconds or MB/s with precision suited to the magnitude:
// one decimal from 10 up, two below, three below 0.01.
func num(v float64) string {
	v = document.Finite(v)
	a := v
	if a < 0 {
		a = -a
	}
	switch {
	case v == 0:
		return "0"
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 0.01:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// table writes heads (one line each) and rows, right-aligned; the first
// column is the row name.
func table(w io.Writer, heads, rows [][]string) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, h := range heads {
		fmt.Fprintf(tw, "\t%s\t\n", strings.Join(h, "\t"))
	}
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
	}
	_ = tw.Flush() // a bytes.Buffer does not fail
	for line := range strings.Lines(buf.String()) {
		// Empty heading cells leave trailing blanks.
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}

// errWriter keeps the first write error so renderers can write freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
