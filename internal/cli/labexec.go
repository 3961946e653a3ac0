package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/lab"
)

// exitStatus passes a child's exit status through as objbench's own; the
// child has said what it had to.
type exitStatus struct{ code int }

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// ExitNotFound is the shell's status for a command that is not found.
const ExitNotFound = 127

func newLabExecCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	cmd := &cobra.Command{
		Use:     "exec [PROFILE] [flags] -- COMMAND [ARGS...]",
		Short:   "Run a program against the lab: its environment points every SDK at the lab's endpoints",
		Long:    longHelp("lab_exec"),
		Example: examples("lab_exec"),
		Args: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash < 0 || dash == len(args) {
				return usagef("lab exec needs a command after --, e.g. objbench lab exec cross-region -- aws s3 ls")
			}
			if dash > 1 {
				return usagef("lab exec takes at most one PROFILE before --, got %q", strings.Join(args[:dash], " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			profile := ""
			if dash == 1 {
				profile = args[0]
			}
			return runLabExec(cmd.Context(), &lf, profile, args[dash:], stdout, stderr)
		},
	}
	lf.register(cmd.Flags(), false)
	return cmd
}

func runLabExec(ctx context.Context, lf *labFlags, profile string, argv []string, stdout, stderr io.Writer) error {
	l, _, _, err := lf.startAll(ctx, profile)
	if err != nil {
		return err
	}
	defer l.Close()
	code, err := l.Exec(ctx, argv, os.Stdin, stdout, stderr)
	if errors.Is(err, lab.ErrCommandNotFound) {
		fmt.Fprintf(stderr, "objbench: lab exec: %s\n", err)
		return exitStatus{ExitNotFound}
	}
	if err != nil {
		return fmt.Errorf("lab exec: %w", err)
	}
	if code != 0 {
		return exitStatus{code}
	}
	return nil
}
