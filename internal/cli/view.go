package cli

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/terminal"
)

// viewFlags say how a result reads: the summary or every table, and the
// prices its cost is counted at.
type viewFlags struct {
	detail bool
	prices string
}

func (v *viewFlags) register(fl *pflag.FlagSet, withDetail bool) {
	if withDetail {
		fl.BoolVar(&v.detail, "detail", false, "print every table (TTFB and total quantiles, throughput, requests, phases) after the summary's header, instead of the summary")
	}
	fl.StringVar(&v.prices, "prices", "", "price requests and egress with this table (JSON, or YAML ending in .yaml) laid over the shipped list prices, e.g. {\"s3\": {\"egress_per_gb\": 0}}")
}

// loadPrices reads --prices; a file that cannot be used is a usage error.
func (v *viewFlags) loadPrices() (analysis.Prices, error) {
	p, err := analysis.LoadPrices(v.prices)
	return p, usageIs(err, analysis.ErrPrices)
}

// text renders a run or probe document: the summary, or every table.
func (v *viewFlags) text(d *document.Document) func(io.Writer) error {
	return func(w io.Writer) error { return terminal.WriteRunText(w, d, v.detail) }
}
