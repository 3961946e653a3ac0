package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/calibrate"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/report/html"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/session"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/threshold"
	"github.com/objbench/objbench/internal/usage"
)

// probeFlags are shared by probe and serve.
type probeFlags struct {
	targetFlags
	saveFlags
	probe.Settings
	conn string
	otlp string
	cal  calibrate.Settings // --save-profile calibrates instead
	// serviceSizes and streamSizes are --save-profile's size lists, parsed into cal.
	serviceSizes, streamSizes string
}

func (pf *probeFlags) register(fl *pflag.FlagSet) {
	pf.targetFlags.register(fl)
	pf.saveFlags.register(fl)
	fl.IntVar(&pf.Count, "count", 50, "GETs per round, one at a time (--save-profile: requests per operation and size)")
	fl.IntVar(&pf.Pool, "pool", 10, "objects in the pool the keys are drawn from")
	fl.StringVar(&pf.Size, "size", "1KiB", "size of each pool object")
	fl.BoolVar(&pf.Prepare, "prepare", false, "create the pool objects that are missing (under objbench/probe/, or --prefix; they are kept for later rounds)")
	nameFields(fl, &pf.Settings)
	fl.StringVar(&pf.conn, "conn", string(nettrace.Pooled), "connection strategy: pooled (keep-alive), fresh (new connection per request), h2 (HTTP/2)")
	fl.StringVar(&pf.otlp, "otlp", "", "export a trace of each round to this OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (default: $OTEL_EXPORTER_OTLP_ENDPOINT)")
	// A probe reads a kept pool: the upload styles and --force of the
	// measuring commands mean nothing to it, so --help does not offer them.
	for _, name := range []string{"upload", "part-size", "part-concurrency", "force"} {
		_ = fl.MarkHidden(name)
	}
	fl.Lookup("prefix").Usage = "keep the pool under this prefix (inside the target's) instead of objbench/probe/"
}

// options are the round options the flags give.
func (pf *probeFlags) options() (probe.Options, error) {
	o, err := pf.Settings.Options(pf.Timeout)
	return o, usage.Wrap(err)
}

// config is the probe session the flags ask for on raws (none: the
// lab), each target opened with a client that stays open; metrics (serve)
// are observed when withMetrics.
func (pf *probeFlags) config(ctx context.Context, g *globals, raws []string, fs *pflag.FlagSet, withMetrics bool, stderr io.Writer) (session.ProbeConfig, error) {
	labels, err := pf.saveFlags.check()
	if err != nil {
		return session.ProbeConfig{}, err
	}
	strategy, err := nettrace.ParseStrategy(pf.conn)
	if err != nil {
		return session.ProbeConfig{}, usage.Errorf("--conn: %w", err)
	}
	tf := pf.targetFlags
	tf.Persistent = true
	return session.ProbeConfig{Targets: raws, Strategy: strategy, Labels: labels,
		Open: func(raw string) (*target.Env, error) {
			return openTarget(ctx, raw, &tf, fs, labDefaults{}, "")
		},
		KeepSamples: pf.KeepSamples, DB: g.db, NoSave: pf.NoSave, OTLP: pf.otlp, Metrics: withMetrics,
		Stderr: stderr, Notify: notify(stderr)}, nil
}

func newProbeCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var pf probeFlags
	var vf viewFlags
	var out outFlags
	var sf shardFlags
	th := threshold.NewSet(threshold.Run)
	cmd := &cobra.Command{
		Use:     "probe [TARGET...]",
		Short:   "One round of 50 GETs of a small pool, phase by phase, from where it runs",
		Long:    longHelp("probe"),
		Example: examples("probe"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := pf.cal.Check(len(args), cmd.Flags().Changed, pf.serviceSizes, pf.streamSizes); err != nil {
				return err
			}
			if pf.cal.Save != "" {
				return runCalibrate(ctx, args, &pf, &out, cmd.Flags(), stdout, stderr)
			}
			o, err := sf.probeOptions(&pf)
			if err != nil {
				return err
			}
			prices, err := vf.loadPrices()
			if err != nil {
				return err
			}
			c, err := pf.config(ctx, g, args, cmd.Flags(), false, stderr)
			if err != nil {
				return err
			}
			res, err := session.Probe(ctx, c, o, prices)
			if err != nil {
				return err
			}
			thErr := th.Apply(stderr, document.Docs(res.Docs)...)
			if err := out.write(stdout, func(w io.Writer) error { return terminal.WriteProbes(w, res.Docs, out.jsonOut, vf.detail) }); err != nil {
				return err
			}
			if err := html.WriteProbesPage(pf.Report, res.Docs); err != nil {
				return err
			}
			return res.Exit(ctx, errInterrupted, thErr)
		},
	}
	pf.register(cmd.Flags())
	vf.register(cmd.Flags(), true)
	sf.registerPlace(cmd.Flags())
	cmd.Flags().Var(th, "threshold", threshold.Usage)
	out.register(cmd.Flags(), "print the objbench/v1 document (several targets: {\"probes\": [...]})", "no progress line")
	cmd.Flags().StringVar(&pf.cal.Save, "save-profile", "", "calibrate instead: measure the TARGET's path and server into a lab profile, written to FILE or an object URL (see the calibration section above)")
	cmd.Flags().DurationVar(&pf.cal.Budget, "budget", 100*time.Second, "--save-profile: bound on the whole calibration")
	cmd.Flags().BoolVar(&pf.cal.Idle, "idle", false, "--save-profile: also find the idle keep-alive timeout (as idle-timeout; up to 2 minutes more)")
	cmd.Flags().StringVar(&pf.serviceSizes, "service-sizes", "1KiB,1MiB", "--save-profile: GET and PUT sizes whose service time is measured, one class each; the twin draws a request of another size from the nearest")
	cmd.Flags().StringVar(&pf.streamSizes, "stream-sizes", "64KiB,1MiB,8MiB", "--save-profile: sizes of the one-stream GET rates (the largest shows the plateau best)")
	return cmd
}

// runCalibrate is probe --save-profile: one TARGET into a lab profile.
func runCalibrate(ctx context.Context, args []string, pf *probeFlags, out *outFlags, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	status := terminal.NewStatusLine(stderr, out.statusOnStderr(stderr))
	m, err := pf.cal.Run(ctx, func() (*target.Env, error) {
		return openTarget(ctx, targetArg(args), &pf.targetFlags, fs, labDefaults{}, document.NewRunID())
	}, pf.Count, status.Printf)
	if status.Clear(); err != nil {
		return err
	}
	return out.write(stdout, func(w io.Writer) error { return calibrate.WriteMeasured(w, m, pf.cal.Save) })
}
