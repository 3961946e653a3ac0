package explain

import (
	"context"
	"io"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/usage"
)

// Program is what every explain command line gives about the program:
// how it runs and where its output goes.
type Program struct {
	Argv []string
	// Timeout stops the program; 0 is none.
	Timeout time.Duration
	// ProgramOutput is a file for the program's output; "" prefixes its
	// lines onto Stderr.
	ProgramOutput string
	// Prices is a price file laid over the list prices ("" for none).
	Prices string
	Labels map[string]string
	Stdin  io.Reader
	Stderr io.Writer
}

// Command is explain's command line as plain settings.
type Command struct {
	Program
	Lab  lab.Config
	APIs []string
}

// prices checks the program's settings for the APIs given (a mistake is a
// usage.Error) and reads its prices.
func (p Program) prices(apis []string) (analysis.Prices, error) {
	prices, err := Check(apis, p.Timeout, p.Prices)
	if err != nil {
		return analysis.Prices{}, usage.Wrap(err)
	}
	return prices, nil
}

// output opens where the program's output goes.
func (p Program) output() (io.Writer, func() error, error) {
	out, closeOut, err := ProgramOutput(p.ProgramOutput, p.Argv[0], p.Stderr)
	if err != nil {
		return nil, nil, usage.Wrap(err)
	}
	return out, closeOut, nil
}

// Execute checks c (a mistake is a usage.Error), then runs the
// program under a recording lab and explains it (see Run).
func Execute(ctx context.Context, c Command) (*document.ExplainDocument, error) {
	prices, err := c.prices(c.APIs)
	if err != nil {
		return nil, err
	}
	out, closeOut, err := c.output()
	if err != nil {
		return nil, err
	}
	c.Lab.APIs = c.APIs
	return Run(ctx, Config{Lab: c.Lab, Argv: c.Argv, Timeout: c.Timeout, Stdin: c.Stdin, Output: out, CloseOutput: closeOut,
		Prices: prices, RunID: document.NewRunID(), Labels: c.Labels})
}
