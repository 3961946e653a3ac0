package probe

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/units"
)

// Prober holds the targets a process probes, each with the client every
// round uses, and where rounds go: the database, metrics, traces.
// `objbench probe` runs one round of it, `serve` and the Lambda handler many.
type Prober struct {
	Targets []*Target
	// Labels are the --label values of every round's document.
	Labels map[string]string
	// Hooks see every request and round (metrics, traces); Finished sees
	// each round once its document is made.
	Hooks    Hooks
	Finished func(*Round)
	// Store keeps a finished round (nil: rounds are not saved); Keep is
	// how many of its requests it keeps.
	Store func(results.Run, []results.Step, stats.KeptSeq)
	Keep  int

	lab  map[*Target]bool // lab targets: their pool is made on demand
	envs []*target.Env
}

// URLs are the probed targets' URLs, in order.
func (p *Prober) URLs() []string {
	var out []string
	for _, t := range p.Targets {
		out = append(out, t.Info.URL)
	}
	return out
}

// Add opens a client with strategy on a resolved target (which the Prober
// closes) and probes it in every round from now on.
func (p *Prober) Add(ctx context.Context, env *target.Env, strategy nettrace.Strategy) error {
	p.envs = append(p.envs, env)
	c, err := env.Factory(strategy, false, env.Options.Upload, 1)(ctx)
	if err != nil {
		return err
	}
	info := env.Info()
	if rr, ok := c.Backend.(interface{ Region() string }); ok && info.Region == "" {
		info.Region = rr.Region() // resolved by the SDK's configuration chain
	}
	t := &Target{Info: info, Lab: env.LabInfo, Strategy: string(strategy), PeerName: PeerName(env.Endpoint, env.Target, env.Options.Region),
		Client: c, Setup: env.Setup.Backend, Prefix: env.Prefix}
	p.Targets = append(p.Targets, t)
	if p.lab == nil {
		p.lab = map[*Target]bool{}
	}
	p.lab[t] = env.Lab != nil
	return nil
}

// PeerName is the host requests go to: the endpoint's, else the
// provider's public one for the target (S3 virtual-hosted in its region,
// us-east-1 by default; GCS; the Azure account's blob host).
func PeerName(endpoint string, t storage.Target, region string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	switch t.Scheme {
	case "s3":
		if region == "" {
			region = "us-east-1"
		}
		return t.Bucket + ".s3." + region + ".amazonaws.com"
	case "gs":
		return "storage.googleapis.com"
	case "az":
		return t.Account + ".blob.core.windows.net"
	}
	return ""
}

// Find returns the targets a request names: all when name is empty; a
// trailing slash does not matter.
func (p *Prober) Find(name string) ([]*Target, error) {
	if name == "" {
		return p.Targets, nil
	}
	var known []string
	for _, t := range p.Targets {
		if t.Info.URL == name || strings.TrimSuffix(t.Info.URL, "/") == strings.TrimSuffix(name, "/") {
			return []*Target{t}, nil
		}
		known = append(known, t.Info.URL)
	}
	return nil, fmt.Errorf("target %q is not one this process probes (%s)", name, strings.Join(known, ", "))
}

// Round runs one round on each target in turn, records and saves them.
// It returns the rounds made, with the first error that stopped one.
func (p *Prober) Round(ctx context.Context, targets []*Target, o Options) ([]*document.Document, []*Round, error) {
	var docs []*document.Document
	var rounds []*Round
	for _, t := range targets {
		to := o
		if p.lab[t] {
			to.Prepare = true // the lab starts empty with every process
		}
		started := time.Now()
		r, err := Run(ctx, t, to, p.Hooks)
		if r == nil {
			if len(targets) > 1 {
				err = fmt.Errorf("%s: %w", t.Info.URL, err)
			}
			return docs, rounds, err
		}
		if p.Finished != nil {
			p.Finished(r)
		}
		doc := p.document(r, to, started, ctx.Err() != nil)
		docs, rounds = append(docs, doc), append(rounds, r)
		if err := p.save(r, doc); err != nil {
			return docs, rounds, err
		}
		if err != nil {
			return docs, rounds, err
		}
	}
	return docs, rounds, nil
}

// document is the objbench/v1 document of one round.
func (p *Prober) document(r *Round, o Options, started time.Time, interrupted bool) *document.Document {
	first, last := 0, -1
	if n := len(r.Samples); n > 0 {
		first, last = r.Samples[0].Seq, r.Samples[n-1].Seq
	}
	env := document.NewEnvelope("probe", document.NewRunID(), started)
	env.Target, env.Lab, env.DurationS, env.Labels, env.Interrupted = r.Target.Info, r.Target.Lab, r.Wall.Seconds(), p.Labels, interrupted
	env.Options = map[string]string{"count": strconv.Itoa(o.Count), "pool": strconv.Itoa(o.Pool), "size": units.FormatSize(o.Size),
		"conn": r.Target.Strategy, "prefix": r.Target.Prefix}
	return &document.Document{Envelope: env,
		Probe:   &document.ProbeInfo{Round: r.Number, SeqFirst: first, SeqLast: last, Failed: r.Failed},
		Results: []document.Result{r.Result},
	}
}

// save stores a round as a run of command "probe" with every request.
func (p *Prober) save(r *Round, doc *document.Document) error {
	if p.Store == nil {
		return nil
	}
	run, err := results.NewRun(doc)
	if err != nil {
		return err
	}
	run.StartedAt = r.Start
	steps, err := results.Steps(doc, []map[string][]byte{r.Histograms})
	if err != nil {
		return err
	}
	p.Store(run, steps, func(yield func(stats.Kept) bool) {
		for _, s := range r.Samples[:min(len(r.Samples), p.Keep)] {
			if !yield(stats.Kept{Step: 0, Sample: s}) {
				return
			}
		}
	})
	return nil
}

// Close closes every client and lab.
func (p *Prober) Close() {
	for _, t := range p.Targets {
		t.Client.Close()
	}
	for _, e := range p.envs {
		e.Close()
	}
}

// AddAll resolves each raw target once (open: a URL, lab[:PROFILE], or ""
// for the lab; none given is the lab) and adds it with strategy. With
// several, an error names the target it came from.
func (p *Prober) AddAll(ctx context.Context, raws []string, strategy nettrace.Strategy, open func(raw string) (*target.Env, error)) error {
	if len(raws) == 0 {
		raws = []string{""}
	}
	seen := map[string]bool{}
	for _, raw := range raws {
		if seen[raw] {
			continue
		}
		seen[raw] = true
		env, err := open(raw)
		if err != nil {
			if len(raws) > 1 {
				return fmt.Errorf("%s: %w", orLab(raw), err)
			}
			return err
		}
		if err := p.Add(ctx, env, strategy); err != nil {
			return err
		}
	}
	return nil
}

func orLab(raw string) string {
	if raw == "" {
		return "lab"
	}
	return raw
}

// Failed is the error of rounds in which a request failed: how many of how
// many; nil when every request succeeded.
func Failed(rounds []*Round) error {
	var failed, total int64
	for _, r := range rounds {
		failed += r.Failed
		total += int64(len(r.Samples))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d requests failed", failed, total)
	}
	return nil
}
