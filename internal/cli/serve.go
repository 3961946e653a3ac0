package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/session"
	"github.com/objbench/objbench/internal/usage"
)

// serveFlags are the flags of `objbench serve`.
type serveFlags struct {
	probeFlags
	targets []string
	listen  string
	every   time.Duration
	token   string
	noAuth  bool
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
	fl.StringVar(&f.listen, "listen", "", "address to listen on (default 127.0.0.1:$PORT, else 127.0.0.1:8080)")
	fl.DurationVar(&f.every, "every", 0, "also run a round on every target at this interval, e.g. 1m (0: only on request)")
	fl.StringVar(&f.token, "token", "", "bearer token that POST /probe must carry (default $OBJBENCH_TOKEN)")
	fl.BoolVar(&f.noAuth, "allow-unauthenticated", false, "listen beyond loopback without a token: the platform authenticates callers")
	_ = fl.MarkHidden("report") // refused in runServe: a service has no "after the run"
	return cmd
}

func runServe(ctx context.Context, g *globals, f *serveFlags, cmd *cobra.Command, stdout, stderr io.Writer) error {
	o, err := f.options()
	if err != nil {
		return err
	}
	if f.Report != "" {
		return usage.Errorf("serve writes no --report: every round is saved, so 'objbench report RUN' draws any of them")
	}
	token := f.token
	if token == "" {
		token = os.Getenv("OBJBENCH_TOKEN")
	}
	addr, err := probe.CheckServe(f.listen, os.Getenv("PORT"), f.every, token, f.noAuth)
	if err != nil {
		return usage.Wrap(err)
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
	return s.Serve(ctx, ln, f.every)
}
