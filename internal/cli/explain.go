package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/explain"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/threshold"
)

type explainFlags struct {
	lab     labFlags
	save    saveFlags
	jsonOut bool
	timeout time.Duration
	output  string
	prices  string
	apis    []string
	th      threshold.Set
	whatIf  bool
	real    realFlags
}

func newExplainCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:     "explain [PROFILE] [flags] -- COMMAND [ARGS...]",
		Short:   "Run any program against the lab and explain its object-storage traffic, seen from the lab's side",
		Long:    longHelp("explain"),
		Example: examples("explain"),
		Args:    explainArgs(&f.real),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.real.pcapIn != "" { // no command (explainArgs)
				return runExplainReal(cmd.Context(), g, &f, cmd.Flags(), "", nil, stdout, stderr)
			}
			profile, argv := splitAtDash(cmd, args)
			if f.real.on() {
				return runExplainReal(cmd.Context(), g, &f, cmd.Flags(), profile, argv, stdout, stderr)
			}
			return runExplain(cmd.Context(), g, &f, profile, argv, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.lab.register(fl, false)
	(&f.lab).registerNetwork(fl, lab.NetworkHelp)
	fl.StringSliceVar(&f.apis, "apis", []string{"s3", "gcs", "azure"}, "endpoints to serve: s3, gcs, azure (azure only when azurite-blob is on PATH; it takes seconds to start)")
	fl.BoolVar(&f.jsonOut, "json", false, "print the objbench/v1 document (an explain body) instead of the text")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "stop the program (and its process group) after this long: exit 124; 0 for no limit")
	fl.StringVar(&f.output, "program-output", "", `write the program's stdout and stderr to FILE instead of objbench's stderr with a "NAME| " prefix`)
	fl.Var(f.th.For(threshold.Explain), "threshold", threshold.Usage)
	fl.StringVar(&f.prices, "prices", "", "price file laid over the list prices (see 'objbench run --help')")
	fl.BoolVar(&f.whatIf, "what-if", false, "also print the program re-timed under each fix (one kept client, no 100-continue, N in parallel, HTTP/2, another RTT): predicted wall time and saving")
	fl.StringArrayVar(&f.save.Labels, "label", nil, "label the run, k=v (repeatable): for runs, compare and report")
	fl.BoolVar(&f.save.NoSave, "no-save", false, "do not save the run in the results database")
	fl.StringVar(&f.save.Report, "report", "", "also write the run as a self-contained HTML page (with the waterfall) to FILE")
	nameFields(fl, &f.save.Keep)
	f.real.register(fl)
	return cmd
}

func runExplain(ctx context.Context, g *globals, f *explainFlags, profile string, argv []string, stdout, stderr io.Writer) error {
	labCfg, err := f.lab.config(nil, profile)
	if err != nil {
		return err
	}
	labels, err := f.save.check()
	if err != nil {
		return err
	}
	d, err := explain.Execute(ctx, explain.Command{Program: f.program(argv, labels, stderr), Lab: labCfg, APIs: f.apis})
	return explainOut(g, f, d, err, argv, false, stdout, stderr)
}

// program is what explain's flags say about the program.
func (f *explainFlags) program(argv []string, labels map[string]string, stderr io.Writer) explain.Program {
	return explain.Program{Argv: argv, Timeout: f.timeout, ProgramOutput: f.output, Prices: f.prices,
		Labels: labels, Stdin: os.Stdin, Stderr: stderr}
}

// explainOut ends an explain run (on the lab, the real path or a
// capture): a run that could not explain anything is the error; else the
// thresholds, the output, the saved result, and the exit status that says
// how the program ended (none for a capture, which ran no program).
func explainOut(g *globals, f *explainFlags, d *document.ExplainDocument, err error, argv []string, capture bool, stdout, stderr io.Writer) error {
	if msg, status, ok := explain.Failed(err); ok {
		fmt.Fprintf(stderr, "objbench: explain: %s\n", msg)
		return exitStatus{status}
	} else if d == nil {
		return fmt.Errorf("explain: %w", err)
	}
	runErr, thErr := err, f.th.Apply(stderr, d)
	if werr := terminal.WriteExplainOut(stdout, d, f.jsonOut, f.whatIf); werr != nil {
		return werr
	}
	if serr := f.save.where(g).Save(d, nil, nil, stderr); serr != nil {
		return serr
	}
	if capture {
		return cmp.Or(runErr, thErr)
	}
	msg, status, err := explain.Ended(d, argv, runErr)
	if msg != "" {
		fmt.Fprintf(stderr, "objbench: explain: %s\n", msg)
	}
	if err != nil || status == 0 {
		return cmp.Or(err, thErr)
	}
	return exitStatus{status}
}
