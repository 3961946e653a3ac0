package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/session"
)

// serveFlags are the flags of `objbench serve`.
type serveFlags struct {
	probeFlags
	probe.ServeSettings
	targets []string
}

func newServeCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:     "serve",
		Short:   "Probe as a service: POST /probe, GET /metrics, with connections kept across invocations",
		Long:    longHelp("serve"),
		Example: examples("serve"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), g, &f, cmd, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.probeFlags.register(fl)
	fl.StringArrayVar(&f.targets, "target", nil, "a target to probe (repeatable): s3://, gs://, az://, lab[:PROFILE] (default the lab)")
	fl.StringVar(&f.Listen, "listen", "", "address to listen on (default 127.0.0.1:$PORT, else 127.0.0.1:8080)")
	fl.DurationVar(&f.Every, "every", 0, "also run a round on every target at this interval, e.g. 1m (0: only on request)")
	fl.StringVar(&f.Token, "token", "", "bearer token that POST /probe must carry (default $OBJBENCH_TOKEN)")
	fl.BoolVar(&f.NoAuth, "allow-unauthenticated", false, "listen beyond loopback without a token: the platform authenticates callers")
	_ = fl.MarkHidden("report") // refused by probe.ServeSettings.Check: a service has no "after the run"
	return cmd
}

func runServe(ctx context.Context, g *globals, f *serveFlags, cmd *cobra.Command, stdout, stderr io.Writer) error {
	o, err := f.options()
	if err != nil {
		return err
	}
	addr, token, err := f.ServeSettings.Check(f.Report, os.Getenv)
	if err != nil {
		return err
	}
	c, err := f.config(ctx, g, f.targets, cmd.Flags(), true, stderr)
	if err != nil {
		return err
	}
	p, err := session.OpenProber(ctx, c)
	if err != nil {
		return err
	}
	defer p.Close(context.Background())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	s := &probe.Server{P: p.Prober, Defaults: o, Token: token, Metrics: p.Telemetry.Metrics.Handler(), Log: stderr}
	terminal.WriteServing(stdout, ln.Addr().String(), p.Prober.URLs(), token != "")
	return s.Serve(ctx, ln, f.Every)
}
