// Package cli is objbench's command line: one file per subcommand. It is the
// only package that prints to the terminal and chooses exit codes.
package cli

import (
	"github.com/objbench/objbench/internal/target"

	"github.com/objbench/objbench/internal/document"

	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// usageError marks a mistake in the command line: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// errInterrupted reports a run stopped by the user after printing partial results.
var errInterrupted = errors.New("interrupted")

// Main runs the objbench command line and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && isCobraUsage(err) {
		err = usageError{err}
	}
	return exitCode(err, stderr)
}

// exitCode prints err once and maps it to an exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ue usageError
	var te target.UsageError
	var es exitStatus
	switch {
	case errors.As(err, &es):
		return es.code // a child's status, passed through: it spoke for itself
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "objbench: interrupted")
		return ExitInterrupted
	case errors.As(err, &ue), errors.As(err, &te):
		fmt.Fprintf(stderr, "objbench: %s (see --help)\n", oneLine(err.Error()))
		return ExitUsage
	}
	fmt.Fprintf(stderr, "objbench: %s\n", oneLine(err.Error()))
	return ExitFailure
}

// oneLine keeps an error on one line: SDK errors sometimes span several.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "objbench",
		Short: "Measure, explain and improve object storage latency and throughput",
		Long: `objbench measures the latency and throughput a program gets from object storage
(Amazon S3 and S3-compatible stores, Google Cloud Storage, Azure Blob Storage), phase
by phase: DNS, connect, TLS, send, wait, receive, and whether connections were reused.

With no target it runs on an embedded lab (S3 and GCS servers behind an emulated
network link), so it needs no account:

  objbench run                         # quick suite on the embedded lab
  objbench run lab:cross-region --tls  # the same over an emulated 80 ms link
  objbench run s3://my-bucket          # on a real bucket (also gs://, az://)
  objbench strategies                  # what reuse, parallelism and HTTP/2 are worth
  objbench explain -- python3 app.py   # any program's storage traffic, seen from the lab, explained
  objbench lab check --rtt 40ms        # prove the lab's round-trip math
  objbench runs; objbench compare A B  # saved results, compared with confidence intervals
  objbench report A B -o report.html   # one self-contained HTML page with plots
  objbench probe s3://my-bucket        # seed 000's probe: 50 GETs, phase by phase
  objbench serve --target gs://bucket  # the probe as a service: /probe, /metrics, OTLP traces
  objbench startup --env-label laptop  # start-up time variance of a runtime (seed 002)`,
		Version:       document.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	g := &globals{}
	root.PersistentFlags().StringVar(&g.db, "db", "", "results database (default $XDG_DATA_HOME/objbench/results.db)")
	root.AddCommand(newRunCmd(g, stdout, stderr), newLabCmd(stdout, stderr), newStrategiesCmd(g, stdout, stderr),
		newIdleTimeoutCmd(stdout, stderr), newRunsCmd(g, stdout), newShowCmd(g, stdout), newExportCmd(g, stdout),
		newDeleteCmd(g, stdout), newCompareCmd(g, stdout), newStartupCmd(g, stdout, stderr), newReportCmd(g, stdout, stderr),
		newProbeCmd(g, stdout, stderr), newServeCmd(g, stdout, stderr), newLambdaCmd(g, stderr),
		newExplainCmd(g, stdout, stderr))
	return root
}

// isCobraUsage recognises the command-line errors cobra returns itself.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires ", "invalid argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
