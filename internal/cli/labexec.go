package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/explain"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/usage"
)

// exitStatus passes a child's exit status through as objbench's own; the
// child has said what it had to.
type exitStatus struct{ code int }

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Exit statuses of lab exec and explain beyond the program's own
// (internal/explain decides them).
const (
	ExitNotFound         = explain.ExitNotFound
	ExitNothingExplained = explain.ExitNothingExplained
	ExitTimeout          = explain.ExitTimeout
)

func newLabExecCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	cmd := &cobra.Command{
		Use:     "exec [PROFILE] [flags] -- COMMAND [ARGS...]",
		Short:   "Run a program against the lab: its environment points every SDK at the lab's endpoints",
		Long:    longHelp("lab_exec"),
		Example: examples("lab_exec"),
		Args:    profileThenCommand("lab exec", "objbench lab exec cross-region -- aws s3 ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			profile, argv := splitAtDash(cmd, args)
			return runLabExec(cmd.Context(), &lf, profile, argv, stdout, stderr)
		},
	}
	lf.register(cmd.Flags(), false)
	lf.registerNetwork(cmd.Flags(), lab.NetworkHelp)
	return cmd
}

// profileThenCommand accepts [PROFILE] -- COMMAND [ARGS...] (lab exec, explain).
func profileThenCommand(name, example string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		dash := cmd.ArgsLenAtDash()
		if dash < 0 || dash == len(args) {
			return usage.Errorf("%s needs a command after --, e.g. %s", name, example)
		}
		if dash > 1 {
			return usage.Errorf("%s takes at most one PROFILE before --, got %q", name, strings.Join(args[:dash], " "))
		}
		return nil
	}
}

// splitAtDash is the PROFILE ("" for none) and the command of
// profileThenCommand's arguments.
func splitAtDash(cmd *cobra.Command, args []string) (profile string, argv []string) {
	dash := cmd.ArgsLenAtDash()
	if dash == 1 {
		profile = args[0]
	}
	return profile, args[dash:]
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
