package session

import (
	"context"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/target"
)

// StrategiesConfig is one strategies run: the connection and upload
// strategies side by side on the same objects.
type StrategiesConfig struct {
	Env      *target.Env
	RunID    string
	Started  time.Time
	Options  map[string]string
	Labels   map[string]string
	Expect   bool
	Timeout  time.Duration
	Objects  int
	Parallel int
	Sizes    []int64
	// Keys are existing objects to download (under the target's prefix);
	// SkipDownloads leaves downloads out.
	Keys          []string
	SkipDownloads bool
	// Download is how a GET reads an object (see Config.Download).
	Download string
	Prices   analysis.Prices
	// OnStrategy reports each strategy as it starts, OnDone the sweep's
	// end; Notify prints a line.
	OnStrategy func(op string, size int64, spec load.StrategySpec)
	OnDone     func()
	Notify     func(line string)
}

// StrategiesOutcome is a finished (or interrupted) strategies run.
type StrategiesOutcome struct {
	Doc *document.StrategiesDocument
	// Err is why the run stopped early (or was interrupted), with rows
	// to show.
	Err error
}

// Strategies runs c. An error is returned only when the run stopped with
// no row to show; else StrategiesOutcome.Err says why it stopped early.
func Strategies(ctx context.Context, c StrategiesConfig) (StrategiesOutcome, error) {
	env := c.Env
	keys := make([]string, len(c.Keys))
	for i, k := range c.Keys {
		keys[i] = env.Target.Prefix + k
	}
	doc := &document.StrategiesDocument{Envelope: document.NewEnvelope("strategies", c.RunID, c.Started)}
	doc.Target, doc.Lab, doc.Labels, doc.Options = env.Info(), env.LabInfo, c.Labels, withDownload(c.Options, c.Download)
	sweep := &load.StrategySweep{
		NewClient: func(spec load.StrategySpec) load.ClientFactory {
			return env.Factory(spec.Conn, c.Expect, spec.Upload, 1)
		},
		Timeout: c.Timeout, Setup: env.Setup.Backend, Prefix: env.Prefix, Keep: env.Keep,
		Objects: c.Objects, Sizes: c.Sizes, RTT: env.LabRTT(), Keys: keys, SkipDownloads: c.SkipDownloads,
		Download: download(env, c.Download), Progress: c.OnStrategy,
	}
	all, runErr, cerr := sweep.Run(ctx, load.Strategies(load.SDKUpload(env.Target.Scheme), c.Parallel))
	c.OnDone()
	interrupted := ctx.Err() != nil
	if cerr != nil {
		c.Notify("warning: " + cerr.Error())
	}
	doc.Strategies, doc.Summary, doc.FirstVsLater = analysis.StrategyRows(all)
	analysis.AnnotateStrategies(doc, c.Prices)
	doc.DurationS = time.Since(c.Started).Seconds()
	doc.Interrupted = interrupted
	if runErr != nil && !interrupted && len(all) == 0 {
		return StrategiesOutcome{}, runErr
	}
	return StrategiesOutcome{Doc: doc, Err: runErr}, nil
}
