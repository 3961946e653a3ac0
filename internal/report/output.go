// Package report holds the little the renderers share: terminal (progress,
// tables, text), html (the page) and export (csv, samples, series) each
// render documents; report writes to stdout or -o FILE and formats sizes.
package report

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/units"
)

// HumanBytes prints a size in decimal units (1 kB = 1000 B), for fitted
// sizes that are not whole binary units.
func HumanBytes(b float64) string {
	one := func(v float64, unit string) string {
		return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + unit
	}
	switch {
	case b >= 1e9:
		return one(b/1e9, "GB")
	case b >= 1e6:
		return one(b/1e6, "MB")
	case b >= 1e3:
		return one(b/1e3, "kB")
	}
	return fmt.Sprintf("%.0f B", b)
}

// WriteOutput runs write on stdout, or on a file created at path when
// path is given (-o FILE).
func WriteOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		if err := write(stdout); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		return nil
	}
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write output: %w", err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// ErrorClasses lists, sorted, the error classes seen in steps.
func ErrorClasses(steps []document.Result) []string {
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

// FormatSize prints a byte count in binary units: 0B, 1KiB, 32MiB, 1500B.
func FormatSize(n int64) string { return units.FormatSize(n) }

// Num prints milliseconds or MB/s with precision suited to the magnitude:
// one decimal from 10 up, two below, three below 0.01.
func Num(v float64) string {
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

// HasThroughput reports whether MB/s means something for r.
func HasThroughput(r document.Result) bool {
	return r.SizeBytes > 0 && (r.Op == "get" || r.Op == "put")
}

func Fixed(v float64, prec int) string { return strconv.FormatFloat(document.Finite(v), 'f', prec, 64) }

// Positive prints v, or "-" when it was not measured (zero).
func Positive(v float64) string {
	if document.Finite(v) <= 0 {
		return "-"
	}
	return Num(v)
}

// WriteCost prints what the requests cost at list prices and at scale.
func WriteCost(w io.Writer, c *document.Cost) {
	if c == nil {
		return
	}
	var parts []string
	for _, o := range c.ByOp {
		parts = append(parts, fmt.Sprintf("%s %s", o.Op, analysis.FormatUSD(o.RequestsUSD)))
	}
	fmt.Fprintf(w, "\ncost at %s list prices (%s; %s):\n", c.Provider, c.Prices, c.PriceDate)
	data := ""
	if c.DataUSD > 0 {
		data = " + data upload/retrieval " + analysis.FormatUSD(c.DataUSD)
	}
	fmt.Fprintf(w, "  %d requests %s (%s) + egress %s %s%s = %s\n", c.Requests, analysis.FormatUSD(c.RequestsUSD), strings.Join(parts, ", "),
		HumanBytes(float64(c.EgressBytes)), analysis.FormatUSD(c.EgressUSD), data, analysis.FormatUSD(c.TotalUSD))
	fmt.Fprintf(w, "  this mix costs %s per million objects, %s per hour at the measured rate (%d objects in %s s of steps)\n",
		analysis.FormatUSD(c.PerMillionObjectsUSD), analysis.FormatUSD(c.PerHourUSD), c.Objects, Num(c.WallS))
}
