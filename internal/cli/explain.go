package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/explain"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/report"
)

// Exit statuses of explain beyond the program's own.
const (
	// ExitNothingExplained: the program exited 0 but never reached the lab.
	ExitNothingExplained = 3
	// ExitTimeout: the program ran past --timeout (as timeout(1)).
	ExitTimeout = 124
)

type explainFlags struct {
	lab     labFlags
	save    saveFlags
	jsonOut bool
	timeout time.Duration
	output  string
	prices  string
	apis    []string
}

func newExplainCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:   "explain [PROFILE] [flags] -- COMMAND [ARGS...]",
		Short: "Run any program against the lab and explain its object-storage traffic, seen from the lab's side",
		Long: `explain starts a lab (as 'lab exec' does: S3, GCS and, with azurite-blob on PATH, Azure,
behind the emulated network of PROFILE), runs COMMAND with its environment pointed at the
lab's endpoints, records every connection and request from the servers' side, and explains
what the program did: objects moved, wall time, requests, connections and TLS handshakes
per object, round trips per object by phase (as 'strategies' counts them), the time it
spent not talking to storage, a per-connection timeline, findings with what to change and
what it would save at this round trip, and the cost at list prices.

Unless the environment already names a proxy, the program also gets HTTPS_PROXY and
HTTP_PROXY (the lab's endpoints in NO_PROXY): a proxy on 127.0.0.1 that notes the hosts
the program reaches for, refuses the real clouds' (amazonaws.com, googleapis.com,
core.windows.net) and passes anything else on, so that a program ignoring the lab's
variables is named, with the variable it probably ignored, and never reaches a cloud.

The program's standard output and error go to objbench's standard error, each line
prefixed with "NAME| " (NAME is the command's base name), or to --program-output FILE:
objbench's standard output carries only the explanation (text, or --json).

Exit status: the program's own (0 when it succeeded; 128+N when signal N ended it);
2 usage error; 3 the program exited 0 but made no request to the lab; 124 the program
ran past --timeout and was stopped (the partial record is printed); 127 COMMAND not found;
1 objbench failed (the lab did not start). Nothing is left running.`,
		Example: `  objbench explain cross-region -- python3 upload.py
  objbench explain cross-region --json -- node upload.mjs > before.json
  objbench explain --rtt 40ms --timeout 2m -- sh -c 'curl -s "$AWS_ENDPOINT_URL/objbench/a" "$AWS_ENDPOINT_URL/objbench/b"'
  objbench compare BEFORE_RUN AFTER_RUN      # two explained runs: a program before and after a change`,
		Args: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash < 0 || dash == len(args) {
				return usagef("explain needs a command after --, e.g. objbench explain cross-region -- python3 upload.py")
			}
			if dash > 1 {
				return usagef("explain takes at most one PROFILE before --, got %q", strings.Join(args[:dash], " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			profile := ""
			if dash == 1 {
				profile = args[0]
			}
			return runExplain(cmd.Context(), g, &f, profile, args[dash:], stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.lab.register(fl, false)
	fl.StringSliceVar(&f.apis, "apis", []string{"s3", "gcs", "azure"}, "endpoints to serve: s3, gcs, azure (azure only when azurite-blob is on PATH; it takes seconds to start)")
	fl.BoolVar(&f.jsonOut, "json", false, "print the objbench/v1 document (an explain body) instead of the text")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "stop the program (and its process group) after this long: exit 124; 0 for no limit")
	fl.StringVar(&f.output, "program-output", "", `write the program's stdout and stderr to FILE instead of objbench's stderr with a "NAME| " prefix`)
	fl.StringVar(&f.prices, "prices", "", "price file laid over the list prices (see 'objbench run --help')")
	fl.StringArrayVar(&f.save.labels, "label", nil, "label the run, k=v (repeatable): for runs, compare and report")
	fl.BoolVar(&f.save.noSave, "no-save", false, "do not save the run in the results database")
	fl.StringVar(&f.save.report, "report", "", "also write the run as a self-contained HTML page (with the waterfall) to FILE")
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
	if f.timeout < 0 {
		return usagef("--timeout %s must not be negative", f.timeout)
	}
	prices, err := analysis.LoadPrices(f.prices)
	if err != nil {
		return usageError{err}
	}
	out, closeOut, err := programOutput(f.output, argv[0], stderr)
	if err != nil {
		return err
	}
	for _, a := range f.apis {
		if a != "s3" && a != "gcs" && a != "azure" {
			return usagef("--apis %q: use s3, gcs or azure", a)
		}
	}
	labCfg.APIs = f.apis
	d, err := explain.Run(ctx, explain.Config{Lab: labCfg, Argv: argv, Timeout: f.timeout, Stdin: os.Stdin, Output: out,
		Prices: prices, RunID: document.NewRunID(), Labels: labels,
		Options: map[string]string{"command": strings.Join(explain.Redact(argv), " "), "timeout": f.timeout.String()}})
	if cerr := closeOut(); err == nil && cerr != nil {
		err = cerr
	}
	var nr *explain.NoRequestsError
	switch {
	case errors.Is(err, lab.ErrCommandNotFound):
		fmt.Fprintf(stderr, "objbench: explain: %s\n", err)
		return exitStatus{ExitNotFound}
	case errors.As(err, &nr):
		fmt.Fprintf(stderr, "objbench: explain: %s\n", nr.Msg)
		switch {
		case nr.TimedOut:
			return exitStatus{ExitTimeout}
		case nr.ExitCode != 0:
			return exitStatus{nr.ExitCode}
		}
		return exitStatus{ExitNothingExplained}
	case d == nil:
		return fmt.Errorf("explain: %w", err)
	}
	runErr := err
	if werr := report.WriteOutput("", stdout, func(w io.Writer) error {
		if f.jsonOut {
			return report.WriteExplainJSON(w, d)
		}
		return report.WriteExplainText(w, d)
	}); werr != nil {
		return werr
	}
	if serr := save(g, &f.save, d, nil, nil, stderr); serr != nil {
		return serr
	}
	switch {
	case errors.Is(runErr, explain.ErrTimeout):
		fmt.Fprintf(stderr, "objbench: explain: %s\n", runErr)
		return exitStatus{ExitTimeout}
	case runErr != nil:
		return runErr
	case d.Explain.ExitCode != 0:
		fmt.Fprintf(stderr, "objbench: explain: %s exited with status %d\n", filepath.Base(argv[0]), d.Explain.ExitCode)
		return exitStatus{d.Explain.ExitCode}
	}
	return nil
}

// programOutput is where the program's output goes: FILE, or stderr with
// each line prefixed by the command's name.
func programOutput(path, command string, stderr io.Writer) (io.Writer, func() error, error) {
	if path == "" {
		pw := explain.NewPrefixWriter(stderr, filepath.Base(command)+"| ")
		return pw, pw.Flush, nil
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, nil, usagef("--program-output: %w", err)
	}
	return fh, fh.Close, nil
}
