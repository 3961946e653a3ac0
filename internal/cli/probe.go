package cli

import (
	"github.com/objbench/objbench/internal/analysis"

	"github.com/objbench/objbench/internal/document"

	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/telemetry"
	"github.com/objbench/objbench/internal/units"
)

// probeFlags are shared by probe and serve.
type probeFlags struct {
	targetFlags
	saveFlags
	count   int
	pool    int
	size    string
	prepare bool
	conn    string
	otlp    string
}

func (pf *probeFlags) register(fl *pflag.FlagSet) {
	pf.targetFlags.register(fl)
	pf.saveFlags.register(fl)
	fl.IntVar(&pf.count, "count", 50, "GETs per round, one at a time")
	fl.IntVar(&pf.pool, "pool", 10, "objects in the pool the keys are drawn from")
	fl.StringVar(&pf.size, "size", "1KiB", "size of each pool object")
	fl.BoolVar(&pf.prepare, "prepare", false, "create the pool objects that are missing (under objbench/probe/, or --prefix; they are kept for later rounds)")
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
	size, err := units.ParseSize(pf.size)
	if err != nil || size <= 0 {
		return probe.Options{}, usagef("--size %q: use a size such as 1KiB", pf.size)
	}
	o := probe.Options{Count: pf.count, Pool: pf.pool, Size: size, Prepare: pf.prepare, Timeout: pf.timeout}
	if pf.count <= 0 || pf.pool <= 0 {
		return o, usagef("--count and --pool must be positive")
	}
	if _, err := o.WithDefaults(); err != nil {
		return o, usageError{err}
	}
	return o, nil
}

// prober is a probe.Prober with the telemetry the command line asked for.
type prober struct {
	*probe.Prober
	metrics *telemetry.Metrics
	tracer  *telemetry.Tracer
	stderr  io.Writer
}

// openProber opens every target (the lab when none is given) with a
// client that stays open, and the OTLP exporter when asked for; metrics
// (serve) are observed when withMetrics.
func openProber(ctx context.Context, g *globals, raws []string, pf *probeFlags, fs *pflag.FlagSet, withMetrics bool, stderr io.Writer) (_ *prober, err error) {
	labels, err := pf.saveFlags.check()
	if err != nil {
		return nil, err
	}
	strategy, err := nettrace.ParseStrategy(pf.conn)
	if err != nil {
		return nil, usagef("--conn: %w", err)
	}
	if len(raws) == 0 {
		raws = []string{""}
	}
	p := &prober{Prober: &probe.Prober{Labels: labels, Keep: pf.keep}, stderr: stderr}
	if !pf.noSave {
		p.Store = func(run results.Run, steps []results.Step, kept []stats.Kept) { store(g, run, steps, kept, stderr) }
	}
	defer func() {
		if err != nil {
			p.Close(context.Background())
		}
	}()
	if ep := telemetry.OTLPEndpoint(pf.otlp); ep != "" {
		if p.tracer, err = telemetry.NewTracer(ctx, ep, document.Version()); err != nil {
			return nil, usageError{err}
		}
		p.tracer.Labels = labels
		p.Hooks.OnRound = p.tracer.Round
	}
	if withMetrics {
		p.metrics = telemetry.NewMetrics()
		p.Hooks.OnSample = func(t *probe.Target, s *nettrace.Sample) { p.metrics.Observe(t.Info.URL, t.Strategy, s) }
		p.Finished = func(r *probe.Round) { p.metrics.Round(r.Target.Info.URL, r.Failed) }
	}
	tf := pf.targetFlags
	tf.persistent = true
	seen := map[string]bool{}
	for _, raw := range raws {
		if seen[raw] {
			continue
		}
		seen[raw] = true
		env, err := openTarget(ctx, raw, &tf, fs, labDefaults{}, "")
		if err != nil {
			if len(raws) > 1 {
				return nil, fmt.Errorf("%s: %w", orLab(raw), err)
			}
			return nil, err
		}
		if err := p.Add(ctx, env, strategy); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func orLab(raw string) string {
	if raw == "" {
		return "lab"
	}
	return raw
}

// Close flushes the traces and closes every client and lab.
func (p *prober) Close(ctx context.Context) {
	if p.tracer != nil {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := p.tracer.Shutdown(ctx); err != nil {
			fmt.Fprintf(p.stderr, "objbench: warning: %s\n", oneLine(err.Error()))
		}
		cancel()
	}
	p.Prober.Close()
}

func newProbeCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var pf probeFlags
	var vf viewFlags
	var jsonOut bool
	var sf shardFlags
	cmd := &cobra.Command{
		Use:   "probe [TARGET...]",
		Short: "One round of seed 000's probe: 50 GETs of a small pool, phase by phase",
		Long: `probe makes one round of the probe seed 000 ran from cloud functions: --count GETs
(default 50), one at a time, of random keys from a pool of --pool objects of --size
(default 10 x 1 KiB), on each TARGET in turn, and prints the phase table of the first
request against the later ones. Every request is saved with its seq, whether its
connection was reused, the target, provider, region and --label values.

The pool lives under objbench/probe/ in the bucket (or --prefix) and is kept for the
next rounds; --prepare creates what is missing (never needed on the lab). With no
TARGET, the embedded lab.

--otlp (or OTEL_EXPORTER_OTLP_ENDPOINT) exports a trace per round: a span per
request with child spans dns, connect, tls, send, wait, recv.

To keep connections across rounds, as a function instance does between invocations,
run 'objbench serve' (or the Lambda handler) instead.

Exit status: 0 when every request succeeded, 1 otherwise, 2 usage error.`,
		Example: `  objbench probe                                        # the lab
  objbench probe s3://my-bucket --prepare               # first time: make the pool
  objbench probe s3://bucket-us gs://bucket-us --label fn=us-central1
  objbench probe lab:cross-region --tls --otlp http://127.0.0.1:4318`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			o, err := sf.probeOptions(&pf)
			if err != nil {
				return err
			}
			prices, err := vf.loadPrices()
			if err != nil {
				return err
			}
			p, err := openProber(ctx, g, args, &pf, cmd.Flags(), false, stderr)
			if err != nil {
				return err
			}
			docs, rounds, runErr := p.Round(ctx, p.Targets, o)
			p.Close(context.Background())
			for _, d := range docs {
				analysis.Annotate(d, prices)
			}
			if jsonOut {
				if len(docs) > 0 {
					if err := report.WriteProbeJSON(stdout, docs); err != nil {
						return err
					}
				}
			} else {
				for _, d := range docs {
					if err := vf.text(d)(stdout); err != nil {
						return err
					}
				}
			}
			if pf.report != "" && len(docs) > 0 {
				var srs []*analysis.Run
				for _, d := range docs {
					srs = append(srs, &analysis.Run{Meta: results.Run{ID: d.RunID, Command: "probe", TargetURL: d.Target.URL, Labels: d.Labels}, Doc: d})
				}
				if err := report.WriteHTMLFile(pf.report, report.PageInput(srs, "")); err != nil {
					return err
				}
			}
			if ctx.Err() != nil {
				return errInterrupted
			}
			if runErr != nil {
				return runErr
			}
			var failed, total int64
			for _, r := range rounds {
				failed += r.Failed
				total += int64(len(r.Samples))
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d requests failed", failed, total)
			}
			return nil
		},
	}
	pf.register(cmd.Flags())
	vf.register(cmd.Flags(), true)
	sf.registerPlace(cmd.Flags())
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the objbench/v1 document (several targets: {\"probes\": [...]})")
	return cmd
}
