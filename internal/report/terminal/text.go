// Package terminal renders documents for a person at a terminal and for
// the commands' stdout: the progress line and live status, the tables and
// text of every command, and their --json output.
package terminal

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report"
)

// phaseNames are the phases of the JSON contract, in order.
var phaseNames = nettrace.PhaseNames()

// WriteText writes the summary a person reads first (see WriteSummary);
// WriteDetail writes every table.
func WriteText(w io.Writer, d *document.Document) error { return WriteSummary(w, d) }

func header(w io.Writer, d *document.Document) {
	command := "run"
	if d.Probe != nil {
		command = "probe"
	}
	if d.Merge != nil {
		command = "merge"
	}
	fmt.Fprintf(w, "objbench %s %s: %s (%s", command, d.RunID, d.Target.URL, d.Target.Provider)
	if d.Target.Endpoint != "" {
		fmt.Fprintf(w, " at %s", d.Target.Endpoint)
	}
	if d.Lab != nil {
		fmt.Fprintf(w, ", lab %s", d.Lab.Profile)
	}
	fmt.Fprintf(w, "), %s s", report.Num(document.Finite(d.DurationS)))
	if d.StartedAt != "" {
		fmt.Fprintf(w, " from %s", d.StartedAt)
	}
	if d.Interrupted {
		fmt.Fprint(w, " (interrupted: partial results)")
	}
	fmt.Fprintln(w)
	if d.CutShort != nil {
		fmt.Fprintf(w, "%s\n", d.CutShort.Sentence())
	}
	if l := d.Lab; l != nil {
		tls := "plain HTTP"
		if l.TLS {
			tls = "TLS"
		}
		fmt.Fprintf(w, "lab: %s API, profile %s, round trip %s ms", l.API, l.Profile, report.Num(document.Finite(l.RTTms)))
		if l.JitterMs > 0 {
			fmt.Fprintf(w, " ± %s ms", report.Num(document.Finite(l.JitterMs)))
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
		s := r.Op + " " + report.FormatSize(r.SizeBytes)
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

// cell prints v, or "-" when no request succeeded.
func cell(count int64, v float64) string {
	if count == 0 {
		return "-"
	}
	return report.Num(v)
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
