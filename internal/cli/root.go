// Package cli is objbench's command line: one file per subcommand. It is the
// only package that prints to the terminal and chooses exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/usage"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// usageIs marks err as a usage error when it is one of kind (the domain
// package's sentinel for a bad setting); other errors are returned as is.
func usageIs(err, kind error) error {
	if errors.Is(err, kind) {
		return usage.Wrap(err)
	}
	return err
}

// errInterrupted reports a run stopped by the user after printing partial results.
var errInterrupted = errors.New("interrupted")

// Main runs the objbench command line and returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if errors.Is(err, lab.ErrRelaunch) {
		// The lab's namespaces need a user namespace: the same command
		// again in one, before it has printed or saved anything.
		code, rerr := lab.Relaunch(ctx, args, os.Stdin, stdout, stderr)
		if rerr == nil {
			return code
		}
		err = rerr
	}
	if err != nil && isCobraUsage(err) {
		err = usage.Wrap(err)
	}
	return exitCode(err, stderr, flagNamer(cmd))
}

// exitCode prints err once and maps it to an exit code; a usage error's
// fields are printed as flag names them.
func exitCode(err error, stderr io.Writer, flag func(field string) string) int {
	if err == nil {
		return ExitOK
	}
	var es exitStatus
	switch {
	case errors.As(err, &es):
		return es.code // a child's status, passed through: it spoke for itself
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "objbench: interrupted")
		return ExitInterrupted
	case usage.Is(err):
		fmt.Fprintf(stderr, "objbench: %s (see --help)\n", oneLine(usage.Rendered(err, flag)))
		return ExitUsage
	}
	fmt.Fprintf(stderr, "objbench: %s\n", oneLine(usage.Rendered(err, flag)))
	return ExitFailure
}

// oneLine keeps an error on one line: SDK errors sometimes span several.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// notify prints a line a domain package reports as the run meets it (a
// warning, a notice), as objbench's own.
func notify(stderr io.Writer) func(line string) {
	return func(line string) { fmt.Fprintf(stderr, "objbench: %s\n", oneLine(line)) }
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "objbench",
		Short:         "Measure, explain and improve object storage latency and throughput",
		Long:          longHelp("objbench"),
		Version:       document.Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage.Wrap(err) })
	g := &globals{}
	root.PersistentFlags().StringVar(&g.db, "db", "", "results database (default $XDG_DATA_HOME/objbench/results.db)")
	var verbose bool
	root.PersistentFlags().BoolVar(&verbose, "verbose", false, "also print the cloud SDKs' own log lines on stderr (credential lookups, retries)")
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if verbose {
			cmd.SetContext(context.WithValue(cmd.Context(), verboseKey{}, stderr))
		}
	}
	root.AddCommand(newRunCmd(g, stdout, stderr), newLabCmd(stdout, stderr), newStrategiesCmd(g, stdout, stderr),
		newIdleTimeoutCmd(stdout, stderr), newRunsCmd(g, stdout), newShowCmd(g, stdout), newExportCmd(g, stdout),
		newDeleteCmd(g, stdout), newCompareCmd(g, stdout), newStartupCmd(g, stdout, stderr), newReportCmd(g, stdout, stderr),
		newProbeCmd(g, stdout, stderr), newServeCmd(g, stdout, stderr), newLambdaCmd(g, stderr),
		newMergeCmd(g, stdout, stderr), newExplainCmd(g, stdout, stderr))
	return root
}

// verboseKey holds objbench's verbose log in a command's context.
type verboseKey struct{}

// verboseLog is where --verbose lines go: stderr with --verbose, else nil
// (dropped). The SDKs' own loggers are routed here (target.Config.Log).
func verboseLog(ctx context.Context) io.Writer {
	w, _ := ctx.Value(verboseKey{}).(io.Writer)
	return w
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
