package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/usage"
)

type idleFlags struct {
	targetFlags
	search load.IdleSearch // its bounds, from the flags
	out    outFlags        // --json and -q (its one table needs no -o)
}

func newIdleTimeoutCmd(stdout, stderr io.Writer) *cobra.Command {
	var f idleFlags
	cmd := &cobra.Command{
		Use:     "idle-timeout [TARGET]",
		Short:   "Find after how long idle the server (or anything between) drops a keep-alive connection",
		Long:    longHelp("idle-timeout"),
		Example: examples("idle-timeout"),
		Args:    atMostOneTarget("idle-timeout"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIdleTimeout(cmd.Context(), targetArg(args), &f, cmd.Flags(), stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.targetFlags.register(fl)
	fl.DurationVar(&f.search.Min, "min", time.Second, "shortest idle time probed")
	fl.DurationVar(&f.search.Max, "max", 120*time.Second, "longest idle time probed")
	fl.IntVar(&f.search.PerRound, "probes", 8, "probes per round, run at once")
	fl.IntVar(&f.search.Rounds, "rounds", 3, "rounds at most")
	nameFields(fl, &f.search)
	f.out.register(fl, "print the result and every probe as JSON", "no progress line")
	return cmd
}

func runIdleTimeout(ctx context.Context, rawTarget string, f *idleFlags, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	search := f.search
	if err := search.Check(); err != nil {
		return usage.Wrap(err)
	}
	env, err := openTarget(ctx, rawTarget, &f.targetFlags, fs, labDefaults{}, document.NewRunID())
	if err != nil {
		return err
	}
	defer env.Close()
	status := f.out.status(stdout, stderr)
	search.NewClient = env.Factory(nettrace.Pooled, false, env.Options.Upload, 1)
	search.Progress = status.IdleRound
	res, err := search.Run(ctx)
	status.Clear()
	if !load.IdleWorthWriting(res, err) {
		return err
	}
	if werr := f.out.write(stdout, func(w io.Writer) error {
		return terminal.WriteIdle(w, f.out.jsonOut, env.Info(), env.LabInfo, env.Where(), search.Max, res)
	}); werr != nil {
		return werr
	}
	return err
}
