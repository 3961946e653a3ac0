package cli

import (
	"github.com/objbench/objbench/internal/document"

	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/units"
)

const bootstrapRounds = 1000

func newCompareCmd(g *globals, stdout io.Writer) *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B [RUN...]",
		Short: "Compare saved runs step by step, with confidence intervals and a verdict",
		Long: `compare matches the steps of RUN_A with those of each other run (same workload, op,
size, concurrency and strategy) and prints p50/p90/p99 total latency and throughput of
each, the change of p50 and p99 with a bootstrap 95% confidence interval (from the raw
samples where they were kept, else from the stored histograms), a Mann-Whitney test where
samples exist, and a verdict: faster, slower, or no significant difference.

When the runs measured different targets with a size sweep (the throughput workload),
it also fits total = TTFB + size/throughput to each and prints the size above which one
finishes a transfer sooner (seed 001: "GCS finishes sooner than Azure above ~1 MB").`,
		Example: `  objbench compare 20261122T2130 20261122T2145
  objbench compare $(objbench runs --label env=a --limit 1 --json | jq -r '.runs[0].run_id') RUN_B --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef("compare takes at least two RUNs, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var comps []comparison
			err := g.withStore(ctx, func(st *results.Store) error {
				var runs []*savedRun
				for _, id := range args {
					sr, err := loadRun(ctx, st, id)
					if err != nil {
						return err
					}
					runs = append(runs, sr)
				}
				samples := &sampleCache{st: st}
				for _, b := range runs[1:] {
					c, err := compareRuns(ctx, samples, runs[0], b)
					if err != nil {
						return err
					}
					comps = append(comps, c)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if jsonOut {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"schema": document.Schema, "comparisons": comps})
			}
			for _, c := range comps {
				writeComparison(stdout, c)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the comparisons as JSON")
	return cmd
}

type stepStats struct {
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	MBps  float64 `json:"mb_per_s"`
	Count int64   `json:"count"`
}

type stepComparison struct {
	Step         string       `json:"step"`
	A            stepStats    `json:"a"`
	B            stepStats    `json:"b"`
	DeltaP50     stats.Change `json:"delta_p50_ms"`
	DeltaP99     stats.Change `json:"delta_p99_ms"`
	MannWhitneyP *float64     `json:"mann_whitney_p,omitempty"`
	Source       string       `json:"source"` // "samples" or "histograms"
	Verdict      string       `json:"verdict"`
}

type comparison struct {
	A          string               `json:"a"`
	B          string               `json:"b"`
	ALabel     string               `json:"a_label"`
	BLabel     string               `json:"b_label"`
	Steps      []stepComparison     `json:"steps"`
	Crossovers []document.Crossover `json:"crossovers,omitempty"`
	Note       string               `json:"note,omitempty"`
}

func stepKey(r document.Result) string {
	k := r.Workload + " " + r.Op + " " + units.FormatSize(r.SizeBytes)
	if r.Concurrency > 1 || r.Workload == "concurrency" {
		k += fmt.Sprintf(" c=%d", r.Concurrency)
	}
	return k + " " + r.Strategy
}

// runLabel names a run in tables and legends.
func runLabel(sr *savedRun) string {
	if len(sr.run.Labels) > 0 {
		return formatLabels(sr.run.Labels)
	}
	l := sr.run.TargetURL
	var lab *document.LabInfo
	if sr.doc != nil {
		lab = sr.doc.Lab
	} else if sr.strategies != nil {
		lab = sr.strategies.Lab
	}
	if lab != nil {
		l = "lab " + lab.API + ":" + lab.Profile
	}
	return l
}

// values returns the total latencies (ms) of a step: the raw samples when
// enough were kept, else values drawn from its histogram.
func values(sr *savedRun, step int, byStep map[int][]float64) ([]float64, string, error) {
	if v := byStep[step]; len(v) >= 20 {
		return v, "samples", nil
	}
	for _, s := range sr.steps {
		if s.Index == step {
			if b := s.Histograms["total"]; len(b) > 0 {
				h, err := stats.DecodeHistogram(b)
				if err != nil {
					return nil, "", err
				}
				return h.Values(20_000), "histograms", nil
			}
		}
	}
	return nil, "none", nil
}

// sampleCache reads each run's kept samples once (total ms by step),
// however many comparisons use the run.
type sampleCache struct {
	st    *results.Store
	byRun map[string]map[int][]float64
}

func (c *sampleCache) get(ctx context.Context, id string) (map[int][]float64, error) {
	if m, ok := c.byRun[id]; ok {
		return m, nil
	}
	out := map[int][]float64{}
	err := c.st.Samples(ctx, id, func(row results.SampleRow) error {
		if row.OK() {
			out[row.Step] = append(out[row.Step], float64(row.Total())/1e6)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.byRun == nil {
		c.byRun = map[string]map[int][]float64{}
	}
	c.byRun[id] = out
	return out, nil
}

func compareRuns(ctx context.Context, samples *sampleCache, a, b *savedRun) (comparison, error) {
	c := comparison{A: a.run.ID, B: b.run.ID, ALabel: runLabel(a), BLabel: runLabel(b)}
	if a.startup != nil && b.startup != nil {
		compareStartup(&c, a.startup, b.startup)
		return c, nil
	}
	if a.doc == nil || b.doc == nil {
		c.Note = fmt.Sprintf("step statistics compare run results; %s is a %s run and %s a %s run", a.run.ID, a.run.Command, b.run.ID, b.run.Command)
		return c, nil
	}
	sa, err := samples.get(ctx, a.run.ID)
	if err != nil {
		return c, err
	}
	sb, err := samples.get(ctx, b.run.ID)
	if err != nil {
		return c, err
	}
	idxB := map[string]int{}
	for i, r := range b.doc.Results {
		idxB[stepKey(r)] = i
	}
	rng := rand.New(rand.NewPCG(1, 2)) // reproducible intervals
	for i, ra := range a.doc.Results {
		j, ok := idxB[stepKey(ra)]
		if !ok {
			continue
		}
		rb := b.doc.Results[j]
		sc := stepComparison{Step: stepKey(ra),
			A: stepStats{ra.TotalMs.P50, ra.TotalMs.P90, ra.TotalMs.P99, ra.MBps.P50, ra.Count},
			B: stepStats{rb.TotalMs.P50, rb.TotalMs.P90, rb.TotalMs.P99, rb.MBps.P50, rb.Count}}
		va, srcA, err := values(a, i, sa)
		if err != nil {
			return c, err
		}
		vb, srcB, err := values(b, j, sb)
		if err != nil {
			return c, err
		}
		sc.Source = srcA
		if srcB != srcA {
			sc.Source = srcA + "/" + srcB
		}
		sc.DeltaP50 = stats.BootstrapQuantile(va, vb, 0.5, bootstrapRounds, rng)
		sc.DeltaP99 = stats.BootstrapQuantile(va, vb, 0.99, bootstrapRounds, rng)
		significant := sc.DeltaP50.Significant()
		if srcA == "samples" && srcB == "samples" {
			p := stats.MannWhitney(va, vb)
			sc.MannWhitneyP = &p
			significant = significant && p < 0.05
		}
		sc.Verdict = verdict(len(va), len(vb), significant, sc.DeltaP50.Delta)
		c.Steps = append(c.Steps, sc)
	}
	c.Crossovers = crossovers(a, b)
	return c, nil
}

// crossovers fits total = TTFB + size/rate to the throughput sweeps of two
// runs of different targets and finds where the lines cross.
func crossovers(a, b *savedRun) []document.Crossover {
	if a.doc == nil || b.doc == nil || runLabel(a) == runLabel(b) && a.run.TargetURL == b.run.TargetURL {
		return nil
	}
	var out []document.Crossover
	for _, op := range []string{"get", "put"} {
		fa, okA := fitSweep(a.doc, op)
		fb, okB := fitSweep(b.doc, op)
		if !okA || !okB {
			continue
		}
		x := document.Crossover{Op: op, A: runLabel(a), B: runLabel(b), ARunID: a.run.ID, BRunID: b.run.ID, FitA: fa, FitB: fb}
		ka, kb := 1/(fa.MBps*1000), 1/(fb.MBps*1000) // ms per byte
		if ka != kb {
			x.SizeBytes = (fb.TTFBms - fa.TTFBms) / (ka - kb)
		}
		if x.SizeBytes > 0 {
			if kb < ka {
				x.Faster = x.B
			} else {
				x.Faster = x.A
			}
		}
		out = append(out, x)
	}
	return out
}

// fitSweep fits a run's throughput steps of op: p50 total against size.
func fitSweep(d *document.Document, op string) (document.Fit, bool) {
	var xs, ys []float64
	var f document.Fit
	for _, r := range d.Results {
		if r.Workload == "throughput" && r.Op == op && r.Count > 0 && r.SizeBytes > 0 {
			xs = append(xs, float64(r.SizeBytes))
			ys = append(ys, r.TotalMs.P50)
			f.Points = append(f.Points, [2]float64{float64(r.SizeBytes), r.TotalMs.P50})
		}
	}
	icept, slope, ok := stats.LinearFit(xs, ys)
	if !ok || slope <= 0 || len(xs) < 2 {
		return f, false
	}
	f.TTFBms, f.MBps = max(icept, 0), 1/(slope*1000)
	return f, true
}

// verdict reads a comparison of nA and nB values whose p50 changed by
// delta (B minus A).
func verdict(nA, nB int, significant bool, delta float64) string {
	switch {
	case nA == 0 || nB == 0:
		return "no data"
	case !significant:
		return "no significant difference"
	case delta < 0:
		return "B faster"
	}
	return "B slower"
}

func writeComparison(w io.Writer, c comparison) {
	fmt.Fprintf(w, "A = %s (%s)\nB = %s (%s)\n", c.A, c.ALabel, c.B, c.BLabel)
	if c.Note != "" {
		fmt.Fprintf(w, "%s\n\n", c.Note)
		return
	}
	if len(c.Steps) == 0 {
		fmt.Fprintln(w, "no step in common")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tA p50\tA p90\tA p99\tA MB/s\tB p50\tB p90\tB p99\tB MB/s\tΔp50 ms [95% CI]\tΔp99 ms [95% CI]\tMW p\tverdict\t")
	for _, s := range c.Steps {
		mw := "-"
		if s.MannWhitneyP != nil {
			mw = fmt.Sprintf("%.2g", *s.MannWhitneyP)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%s\t%.2f\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n", strings.TrimSpace(s.Step),
			s.A.P50, s.A.P90, s.A.P99, mbpsCell(s.A.MBps), s.B.P50, s.B.P90, s.B.P99, mbpsCell(s.B.MBps),
			changeCell(s.DeltaP50), changeCell(s.DeltaP99), mw, s.Verdict)
	}
	tw.Flush()
	for _, x := range c.Crossovers {
		fmt.Fprintf(w, "\ncrossover (%s): ", x.Op)
		if x.SizeBytes > 0 {
			fmt.Fprintf(w, "%s finishes sooner for objects larger than %s\n", x.Faster, report.HumanBytes(x.SizeBytes))
		} else {
			fmt.Fprintln(w, "none: one run is faster at every size")
		}
		fmt.Fprintf(w, "  fit A: total = %.1f ms + size / %.1f MB/s (%d sizes)\n", x.FitA.TTFBms, x.FitA.MBps, len(x.FitA.Points))
		fmt.Fprintf(w, "  fit B: total = %.1f ms + size / %.1f MB/s (%d sizes)\n", x.FitB.TTFBms, x.FitB.MBps, len(x.FitB.Points))
	}
	fmt.Fprintln(w)
}

func mbpsCell(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func changeCell(c stats.Change) string {
	return fmt.Sprintf("%+.2f [%+.2f, %+.2f]", c.Delta, c.Lo, c.Hi)
}

// compareStartup compares two environments scenario by scenario, from the
// wall time of every run (seed 002).
func compareStartup(c *comparison, a, b *document.StartupDocument) {
	rng := rand.New(rand.NewPCG(1, 2))
	idx := map[string]document.StartupScenario{}
	for _, s := range b.Scenarios {
		idx[s.Scenario] = s
	}
	for _, sa := range a.Scenarios {
		sb, ok := idx[sa.Scenario]
		if !ok {
			continue
		}
		sc := stepComparison{Step: "startup " + sa.Scenario + " wall", Source: "samples",
			A: stepStats{P50: sa.WallMs.Median, P90: sa.WallMs.P90, P99: sa.WallMs.P99, Count: int64(len(sa.WallSamplesMs))},
			B: stepStats{P50: sb.WallMs.Median, P90: sb.WallMs.P90, P99: sb.WallMs.P99, Count: int64(len(sb.WallSamplesMs))}}
		sc.DeltaP50 = stats.BootstrapQuantile(sa.WallSamplesMs, sb.WallSamplesMs, 0.5, bootstrapRounds, rng)
		sc.DeltaP99 = stats.BootstrapQuantile(sa.WallSamplesMs, sb.WallSamplesMs, 0.99, bootstrapRounds, rng)
		p := stats.MannWhitney(sa.WallSamplesMs, sb.WallSamplesMs)
		sc.MannWhitneyP = &p
		sc.Verdict = verdict(len(sa.WallSamplesMs), len(sb.WallSamplesMs), sc.DeltaP50.Significant() && p < 0.05, sc.DeltaP50.Delta)
		c.Steps = append(c.Steps, sc)
	}
}
