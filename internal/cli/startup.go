package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/startup"
	"github.com/objbench/objbench/internal/usage"
)

type startupFlags struct {
	saveFlags
	startup.Settings
	envLabel string
	out      outFlags
}

func newStartupCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f startupFlags
	cmd := &cobra.Command{
		Use:     "startup",
		Short:   "Measure how much start-up (loading many small modules in a child process) varies",
		Long:    longHelp("startup"),
		Example: examples("startup"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStartup(cmd.Context(), g, &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.saveFlags.register(fl)
	fl.StringVar(&f.Runtime, "runtime", "", "node or python (default: node if on PATH, else python)")
	fl.IntVar(&f.Modules, "modules", 1000, "modules to generate")
	fl.IntVar(&f.Props, "props", 100, "up to this many random properties per module")
	fl.IntVar(&f.Runs, "runs", 1000, "runs per scenario")
	fl.StringVar(&f.Scenarios, "scenario", "require,regenerate,cpu", "scenarios: require, regenerate, cpu")
	fl.DurationVar(&f.CPUTime, "cpu-time", time.Second, "cpu scenario: how long the child spins")
	fl.DurationVar(&f.Timeout, "timeout", 30*time.Second, "bound on each run; a run beyond it is a timeout")
	fl.Int64Var(&f.Seed, "seed", 1, "seed of the generated modules (the same seed, the same modules)")
	fl.StringVar(&f.envLabel, "env-label", "", "name of this environment (stored as label env=NAME)")
	f.out.register(fl, "print the objbench/v1 startup document", "no progress line")
	return cmd
}

func runStartup(ctx context.Context, g *globals, f *startupFlags, stdout, stderr io.Writer) error {
	labels, err := f.saveFlags.check()
	if err != nil {
		return err
	}
	o, err := f.Options()
	if err != nil {
		return usage.Wrap(err)
	}
	status := f.out.status(stdout, stderr)
	o.Progress = status.StartupRuns
	runID := document.NewRunID()
	started := time.Now()
	res, runErr := startup.Run(ctx, o)
	status.Clear()
	if res == nil {
		return runErr
	}
	doc := res.Document(startup.Meta{RunID: runID, Started: started, Settings: f.Settings, Labels: labels,
		EnvLabel: f.envLabel, Interrupted: ctx.Err() != nil})
	textOf := func(w io.Writer) error { return terminal.WriteStartupText(w, doc) }
	return finish(g, &f.saveFlags, &f.out, doc, textOf, nil, nil, runErr, stdout, stderr)
}
