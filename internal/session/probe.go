package session

import (
	"context"
	"errors"
	"io"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/telemetry"
	"github.com/objbench/objbench/internal/usage"
)

// ProbeConfig is a probe session (probe, serve, the Lambda handler): the
// targets, each opened once with a client that every round reuses, and
// where the rounds go.
type ProbeConfig struct {
	// Targets are the raw targets (a URL, lab[:PROFILE]; none is the lab),
	// each resolved by Open: the command line's flags stay its own.
	Targets  []string
	Open     func(raw string) (*target.Env, error)
	Strategy nettrace.Strategy
	Labels   map[string]string
	// KeepSamples is how many requests of a round are stored; DB is the
	// results database the rounds go to, unless NoSave.
	KeepSamples int
	DB          string
	NoSave      bool
	// OTLP is the collector traces go to (empty: $OTEL_EXPORTER_OTLP_ENDPOINT,
	// else none); Metrics observes every round for Prometheus (serve).
	OTLP    string
	Metrics bool
	// Stderr takes a store's warning; Notify prints a line (a warning).
	Stderr io.Writer
	Notify func(line string)
}

// Prober is a probe.Prober with the telemetry its session asked for.
type Prober struct {
	*probe.Prober
	Telemetry *telemetry.Telemetry
	notify    func(string)
}

// OpenProber opens every target of c with a client that stays open, and
// the OTLP exporter and metrics when asked for. The caller closes it.
func OpenProber(ctx context.Context, c ProbeConfig) (_ *Prober, err error) {
	p := &Prober{Prober: &probe.Prober{Labels: c.Labels, Keep: c.KeepSamples}, notify: c.Notify}
	if !c.NoSave {
		p.Store = func(run results.Run, steps []results.Step, kept stats.KeptSeq) {
			Keep{DB: c.DB}.Store(run, steps, kept, c.Stderr)
		}
	}
	defer func() {
		if err != nil {
			p.Close(context.Background())
		}
	}()
	if p.Telemetry, err = telemetry.Attach(ctx, p.Prober, telemetry.OTLPEndpoint(c.OTLP), document.Version(), c.Metrics); err != nil {
		return nil, usage.Wrap(err)
	}
	return p, p.AddAll(ctx, c.Targets, c.Strategy, c.Open)
}

// Close flushes the traces (a failure is a warning: the rounds are kept)
// and closes every client and lab.
func (p *Prober) Close(ctx context.Context) {
	if err := p.Telemetry.Close(ctx); err != nil && p.notify != nil {
		p.notify("warning: " + err.Error())
	}
	p.Prober.Close()
}

// ProbeOutcome is a finished (or interrupted) probe: a round on each
// target, in order, each with its document annotated.
type ProbeOutcome struct {
	Docs   []*document.Document
	Rounds []*probe.Round
	// Err is the error that stopped a round, with the rounds before it
	// (and its own, when it has one) to show.
	Err error
}

// Exit is the error a probe ends with, once its rounds are shown: when
// ctx ended, interrupted (the caller's own, whatever else failed: the
// rounds are partial); else the error that stopped a round; else the
// requests that failed and thresholds (the thresholds the rounds crossed),
// both said.
func (o ProbeOutcome) Exit(ctx context.Context, interrupted, thresholds error) error {
	if ctx.Err() != nil {
		return interrupted
	}
	if o.Err != nil {
		return o.Err
	}
	return errors.Join(probe.Failed(o.Rounds), thresholds)
}

// Probe is `objbench probe`: the session of c opened, one round of o on
// every target, the session closed, and each round's document annotated
// with prices. An error is returned only when the session could not be opened (a target, or
// the exporter): nothing was probed.
func Probe(ctx context.Context, c ProbeConfig, o probe.Options, prices analysis.Prices) (ProbeOutcome, error) {
	p, err := OpenProber(ctx, c)
	if err != nil {
		return ProbeOutcome{}, err
	}
	docs, rounds, err := p.Round(ctx, p.Targets, o)
	p.Close(context.Background())
	for _, d := range docs {
		analysis.Annotate(d, prices)
	}
	return ProbeOutcome{Docs: docs, Rounds: rounds, Err: err}, nil
}
