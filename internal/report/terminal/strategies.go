package terminal

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/units"
)

// WriteStrategiesJSON writes d, every float finite.
func WriteStrategiesJSON(w io.Writer, d *document.StrategiesDocument) error { return writeDoc(w, d) }

// WriteStrategiesText writes the strategies table, one block per op, the
// summary sentences and the first-versus-later table.
func WriteStrategiesText(w io.Writer, d *document.StrategiesDocument) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "objbench strategies %s: %s (%s)", d.RunID, d.Target.URL, d.Target.Provider)
	if d.Target.Endpoint != "" {
		fmt.Fprintf(ew, " at %s", d.Target.Endpoint)
	}
	fmt.Fprintf(ew, ", %.1f s", d.DurationS)
	if d.Interrupted {
		fmt.Fprint(ew, " (interrupted: partial results)")
	}
	fmt.Fprintln(ew)
	if l := d.Lab; l != nil {
		tls := "plain HTTP"
		if l.TLS {
			tls = "TLS"
		}
		fmt.Fprintf(ew, "lab: %s API, profile %s, round trip %s ms, %s\n", l.API, l.Profile, report.Num(l.RTTms), tls)
	}
	type group struct {
		op   string
		size int64
	}
	var groups []group
	for _, op := range []string{"put", "get"} {
		for _, r := range d.Strategies {
			if g := (group{r.Op, r.SizeBytes}); r.Op == op && !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	for _, g := range groups {
		var rows []document.StrategyRow
		for _, r := range d.Strategies {
			if r.Op == g.op && r.SizeBytes == g.size {
				rows = append(rows, r)
			}
		}
		verb := map[string]string{"put": "uploads", "get": "downloads"}[g.op]
		fmt.Fprintf(ew, "\n%d %s of %s", rows[0].Objects, verb, report.FormatSize(g.size))
		if rows[0].RTTms > 0 {
			fmt.Fprintf(ew, " (round trip %s ms; phases in round trips per object)", report.Num(rows[0].RTTms))
		}
		fmt.Fprintln(ew)
		heads := []string{"strategy", "wall s", "obj/s", "p50 ms", "p99 ms", "conns", "tls hs", "req/obj"}
		heads = append(heads, phaseNames...)
		heads = append(heads, "speed-up")
		if d.Cost != nil {
			heads = append(heads, "$/1M obj")
		}
		var body [][]string
		for _, r := range rows {
			if !r.Available {
				body = append(body, []string{r.Strategy, "n/a: " + r.Reason})
				continue
			}
			row := []string{r.Strategy, report.Fixed(r.WallS, 2), report.Num(r.ObjectsPerS), report.Num(r.P50ms), report.Num(r.P99ms),
				strconv.FormatInt(r.Connections, 10), strconv.FormatInt(r.TLSHandshakes, 10), report.Num(r.RequestsPerObject)}
			for _, p := range phaseNames {
				row = append(row, report.Fixed(r.RTTs[p], 1))
			}
			row = append(row, report.Fixed(r.Speedup, 1)+"x")
			if d.Cost != nil {
				row = append(row, report.Fixed(r.CostPerMillionUSD, 2))
			}
			if r.Errors > 0 {
				row = append(row, fmt.Sprintf("(%d errors)", r.Errors))
			}
			body = append(body, row)
		}
		leftTable(ew, heads, body)
	}
	if len(d.Findings) == 0 && len(d.Summary) > 0 {
		fmt.Fprintln(ew)
		for _, s := range d.Summary {
			fmt.Fprintln(ew, s)
		}
	}
	if f := d.FirstVsLater; f != nil {
		fmt.Fprintf(ew, "\nFirst request of a worker vs its later ones (GET, %s), mean ms\n", f.Strategy)
		var body [][]string
		for _, k := range []string{"connect", "tls", "total"} {
			body = append(body, []string{k, report.Num(f.First[k]), report.Num(f.Later[k])})
		}
		leftTable(ew, []string{"phase", "first", "later"}, body)
	}
	WriteFindings(ew, d.Findings) // the saving sentences are findings too
	report.WriteCost(ew, d.Cost)
	return ew.err
}

// leftTable aligns columns with the first column left-aligned.
func leftTable(w io.Writer, heads []string, rows [][]string) {
	all := append([][]string{heads}, rows...)
	widths := map[int]int{}
	for _, r := range all {
		for i, c := range r {
			if len(r) == 2 && i == 1 && len(r) < len(heads) {
				continue // a "n/a" row spans the table
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range all {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := widths[i] - len([]rune(c))
			if len(r) == 2 && i == 1 && len(r) < len(heads) {
				pad = 0
			}
			if i == 0 {
				b.WriteString(c + strings.Repeat(" ", max(pad, 0)))
			} else {
				b.WriteString(strings.Repeat(" ", max(pad, 0)) + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// Strategy draws strategies' progress line: the strategy named name
// measuring op on objects objects of size bytes.
func (s *StatusLine) Strategy(op string, objects int, size int64, name string) {
	s.Printf("%s %d × %s: %s", op, objects, units.FormatSize(size), name)
}
