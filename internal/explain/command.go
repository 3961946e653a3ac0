package explain

import (
	"context"
	"io"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/usage"
)

// Command is explain's command line as plain settings.
type Command struct {
	Lab  lab.Config
	APIs []string
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

// Execute checks c (a mistake is a usage.Error), then runs the
// program under a recording lab and explains it (see Run).
func Execute(ctx context.Context, c Command) (*document.ExplainDocument, error) {
	prices, err := Check(c.APIs, c.Timeout, c.Prices)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	out, closeOut, err := ProgramOutput(c.ProgramOutput, c.Argv[0], c.Stderr)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	c.Lab.APIs = c.APIs
	return Run(ctx, Config{Lab: c.Lab, Argv: c.Argv, Timeout: c.Timeout, Stdin: c.Stdin, Output: out, CloseOutput: closeOut,
		Prices: prices, RunID: document.NewRunID(), Labels: c.Labels})
}
