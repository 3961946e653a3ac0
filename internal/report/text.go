package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// maxColumns keeps tables readable: wider workloads are split.
const maxColumns = 6

// WriteJSON writes d as the indented objbench/v1 document.
func WriteJSON(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(clean(d))
}

// clean returns a copy of d whose floats are all finite.
func clean(d *Document) *Document {
	c := *d
	c.DurationS = sanitize(c.DurationS)
	c.Results = make([]Result, len(d.Results))
	for i, r := range d.Results {
		r.TTFBms, r.TotalMs = cleanDist(r.TTFBms), cleanDist(r.TotalMs)
		r.MBps = Throughput{sanitize(r.MBps.P50), sanitize(r.MBps.P90), sanitize(r.MBps.P99)}
		r.AggregateMBps, r.ReusedFraction, r.RequestsPerOp, r.WallS = sanitize(r.AggregateMBps), sanitize(r.ReusedFraction), sanitize(r.RequestsPerOp), sanitize(r.WallS)
		c.Results[i] = r
	}
	return &c
}

func cleanDist(d Dist) Dist {
	return Dist{sanitize(d.Min), sanitize(d.P50), sanitize(d.P90), sanitize(d.P99), sanitize(d.P999), sanitize(d.Max), sanitize(d.Mean), sanitize(d.Stddev)}
}

// FormatSize prints a byte count in binary units: 0B, 1KiB, 256KiB, 32MiB, 1500B.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// WriteText writes the terminal tables: per workload, TTFB and total latency
// percentiles, per-request and aggregate throughput, counts, and the phase
// table of first versus later requests.
func WriteText(w io.Writer, d *Document) error {
	ew := &errWriter{w: w}
	header(ew, d)
	for _, wl := range workloads(d.Results) {
		var steps []Result
		for _, r := range d.Results {
			if r.Workload == wl {
				steps = append(steps, r)
			}
		}
		for start := 0; start < len(steps); start += maxColumns {
			workloadTables(ew, wl, steps[start:min(start+maxColumns, len(steps))])
		}
		for start := 0; start < len(steps); start += maxColumns / 2 {
			phaseTable(ew, wl, steps[start:min(start+maxColumns/2, len(steps))])
		}
	}
	return ew.err
}

func header(w io.Writer, d *Document) {
	fmt.Fprintf(w, "objbench run %s: %s (%s)", d.RunID, d.Target.URL, d.Target.Provider)
	if d.Target.Endpoint != "" {
		fmt.Fprintf(w, " at %s", d.Target.Endpoint)
	}
	fmt.Fprintf(w, ", %.1f s", d.DurationS)
	if d.Interrupted {
		fmt.Fprint(w, " (interrupted: partial results)")
	}
	fmt.Fprintln(w)
	if l := d.Lab; l != nil {
		tls := "plain HTTP"
		if l.TLS {
			tls = "TLS"
		}
		fmt.Fprintf(w, "lab: %s API, profile %s, round trip %s ms", l.API, l.Profile, num(l.RTTms))
		if l.JitterMs > 0 {
			fmt.Fprintf(w, " ± %s ms", num(l.JitterMs))
		}
		if l.Bandwidth != "" {
			fmt.Fprintf(w, ", %s", l.Bandwidth)
		}
		fmt.Fprintf(w, ", %s\n", tls)
	}
	if len(d.Results) > 0 {
		fmt.Fprintf(w, "connections: %s\n", d.Results[0].Strategy)
	}
}

// workloads lists workload names in first-seen order.
func workloads(rs []Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		if !seen[r.Workload] {
			seen[r.Workload] = true
			out = append(out, r.Workload)
		}
	}
	return out
}

func column(r Result) string {
	s := r.Op + " " + FormatSize(r.SizeBytes)
	if r.Workload == "concurrency" || r.Concurrency > 1 {
		s += " c=" + strconv.Itoa(r.Concurrency)
	}
	return s
}

func workloadTables(w io.Writer, wl string, steps []Result) {
	heads := make([]string, len(steps))
	for i, r := range steps {
		heads[i] = column(r)
	}
	distRows := func(get func(Result) Dist) [][]string {
		rows := [][]string{}
		for _, p := range []struct {
			name string
			f    func(Dist) float64
		}{{"p50", func(d Dist) float64 { return d.P50 }}, {"p90", func(d Dist) float64 { return d.P90 }},
			{"p99", func(d Dist) float64 { return d.P99 }}, {"p99.9", func(d Dist) float64 { return d.P999 }},
			{"min", func(d Dist) float64 { return d.Min }}, {"max", func(d Dist) float64 { return d.Max }},
			{"mean", func(d Dist) float64 { return d.Mean }}} {
			row := []string{p.name}
			for _, r := range steps {
				row = append(row, cell(r, p.f(get(r))))
			}
			rows = append(rows, row)
		}
		return rows
	}
	fmt.Fprintf(w, "\n%s: time to first byte (ms)\n", wl)
	table(w, heads, distRows(func(r Result) Dist { return r.TTFBms }))
	fmt.Fprintf(w, "\n%s: total latency (ms)\n", wl)
	table(w, heads, distRows(func(r Result) Dist { return r.TotalMs }))

	fmt.Fprintf(w, "\n%s: throughput (MB/s; per request at the latency percentile, and aggregate)\n", wl)
	var rows [][]string
	for _, p := range []struct {
		name string
		f    func(Result) float64
	}{{"p50", func(r Result) float64 { return r.MBps.P50 }}, {"p90", func(r Result) float64 { return r.MBps.P90 }},
		{"p99", func(r Result) float64 { return r.MBps.P99 }}, {"aggregate", func(r Result) float64 { return r.AggregateMBps }}} {
		row := []string{p.name}
		for _, r := range steps {
			if r.SizeBytes == 0 || (r.Op != "get" && r.Op != "put") {
				row = append(row, "-")
			} else {
				row = append(row, cell(r, p.f(r)))
			}
		}
		rows = append(rows, row)
	}
	countRow := func(name string, f func(Result) string) []string {
		row := []string{name}
		for _, r := range steps {
			row = append(row, f(r))
		}
		return row
	}
	rows = append(rows,
		countRow("requests", func(r Result) string { return strconv.FormatInt(r.Count, 10) }),
		countRow("errors", func(r Result) string { return errorsCell(r) }),
		countRow("http/op", func(r Result) string { return num(r.RequestsPerOp) }),
		countRow("retries", func(r Result) string { return strconv.FormatInt(r.Retries, 10) }),
		countRow("reconnects", func(r Result) string { return strconv.FormatInt(r.Reconnects, 10) }),
	)
	table(w, heads, rows)
}

// phaseTable prints the p50 of every phase for the first request of each
// worker next to the later ones.
func phaseTable(w io.Writer, wl string, steps []Result) {
	fmt.Fprintf(w, "\n%s: phases, p50 ms (first request of each worker | later requests)\n", wl)
	pheads := make([]string, 0, 2*len(steps))
	for _, r := range steps {
		pheads = append(pheads, column(r)+" first", "later")
	}
	var rows [][]string
	for _, ph := range []string{"dns", "connect", "tls", "send", "wait100", "wait", "recv"} {
		row := []string{ph}
		for _, r := range steps {
			row = append(row, groupCell(r.FirstRequest, r.FirstRequest.PhasesMs[ph].P50), groupCell(r.LaterRequests, r.LaterRequests.PhasesMs[ph].P50))
		}
		rows = append(rows, row)
	}
	for _, g := range []struct {
		name string
		f    func(Group) float64
	}{{"ttfb", func(g Group) float64 { return g.TTFBms.P50 }}, {"total", func(g Group) float64 { return g.TotalMs.P50 }},
		{"reused", func(g Group) float64 { return g.ReusedFraction }}} {
		row := []string{g.name}
		for _, r := range steps {
			row = append(row, groupCell(r.FirstRequest, g.f(r.FirstRequest)), groupCell(r.LaterRequests, g.f(r.LaterRequests)))
		}
		rows = append(rows, row)
	}
	table(w, pheads, rows)
}

func errorsCell(r Result) string {
	if r.Errors == 0 {
		return "0"
	}
	var classes []string
	for k, v := range r.ErrorsByClass {
		classes = append(classes, fmt.Sprintf("%s:%d", k, v))
	}
	sort.Strings(classes)
	return fmt.Sprintf("%d (%s)", r.Errors, strings.Join(classes, " "))
}

// cell prints v, or "-" for a step with no successful request.
func cell(r Result, v float64) string {
	if r.Count == 0 {
		return "-"
	}
	return num(v)
}

func groupCell(g Group, v float64) string {
	if g.Count == 0 {
		return "-"
	}
	return num(v)
}

// num prints with precision suited to the magnitude.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 0.01:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func table(w io.Writer, heads []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t%s\t\n", strings.Join(heads, "\t"))
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
	}
	tw.Flush()
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
