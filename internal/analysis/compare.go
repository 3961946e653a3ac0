package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/units"
)

// bootstrapRounds is how many resamples make an interval.
const bootstrapRounds = 1000

type StepStats struct {
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	MBps  float64 `json:"mb_per_s"`
	Count int64   `json:"count"`
}

type StepComparison struct {
	Step         string       `json:"step"`
	A            StepStats    `json:"a"`
	B            StepStats    `json:"b"`
	DeltaP50     stats.Change `json:"delta_p50_ms"`
	DeltaP99     stats.Change `json:"delta_p99_ms"`
	MannWhitneyP *float64     `json:"mann_whitney_p,omitempty"`
	Source       string       `json:"source"` // "samples" or "histograms"
	Verdict      string       `json:"verdict"`
}

type Comparison struct {
	A          string               `json:"a"`
	B          string               `json:"b"`
	ALabel     string               `json:"a_label"`
	BLabel     string               `json:"b_label"`
	Steps      []StepComparison     `json:"steps"`
	Crossovers []document.Crossover `json:"crossovers,omitempty"`
	Note       string               `json:"note,omitempty"`
	// CutShort says which of the two runs were cut short (killed, and
	// recovered from their journal) and what they cover, e.g. "A: cut
	// short (process 42 on host h is gone): covers 12.0 s measured, ...".
	CutShort []string `json:"cut_short,omitempty"`
	// Findings are the ranked sentences drawn from the comparison.
	Findings []document.Finding `json:"findings,omitempty"`
	// Explain lines up two explained runs' figures (nil otherwise).
	Explain []ExplainRow `json:"explain,omitempty"`
}

func StepKey(r document.Result) string {
	k := r.Workload + " " + r.Op + " " + units.FormatSize(r.SizeBytes)
	if r.Concurrency > 1 || r.Workload == "concurrency" {
		k += fmt.Sprintf(" c=%d", r.Concurrency)
	}
	return k + " " + r.Strategy
}

// Label names a run in tables and legends.
func Label(sr *Run) string {
	if len(sr.Meta.Labels) > 0 {
		return FormatLabels(sr.Meta.Labels)
	}
	l := sr.Meta.TargetURL
	var lab *document.LabInfo
	switch d := sr.Doc.(type) {
	case *document.Document:
		lab = d.Lab
	case *document.StrategiesDocument:
		lab = d.Lab
	case *document.ExplainDocument:
		return "explain " + strings.Join(d.Explain.Program, " ")
	}
	if lab != nil {
		l = "lab " + lab.API + ":" + lab.Profile
	}
	return l
}

// values returns the total latencies (ms) of a step: the raw samples when
// enough were kept, else values drawn from its histogram.
func values(sr *Run, step int, byStep map[int][]float64) ([]float64, string, error) {
	if v := byStep[step]; len(v) >= 20 {
		return v, "samples", nil
	}
	for _, s := range sr.Steps {
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

// SampleCache reads each run's kept samples once (total ms by step),
// however many comparisons use the run.
type SampleCache struct {
	st    *results.Store
	byRun map[string]map[int][]float64
}

func (c *SampleCache) get(ctx context.Context, id string) (map[int][]float64, error) {
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

func Compare(ctx context.Context, samples *SampleCache, a, b *Run) (Comparison, error) {
	c := Comparison{A: a.Meta.ID, B: b.Meta.ID, ALabel: Label(a), BLabel: Label(b)}
	for _, x := range []struct {
		name string
		r    *Run
	}{{"A", a}, {"B", b}} {
		if cs := cutShort(x.r); cs != nil {
			c.CutShort = append(c.CutShort, x.name+": "+cs.Sentence())
		}
	}
	var da, db *document.Document
	switch x := a.Doc.(type) {
	case *document.StartupDocument:
		if y, ok := b.Doc.(*document.StartupDocument); ok {
			compareStartup(&c, x, y)
			return c, nil
		}
	case *document.ExplainDocument:
		if y, ok := b.Doc.(*document.ExplainDocument); ok {
			c.Explain, c.Note = CompareExplain(x, y), explainNote(x, y)
			return c, nil
		}
	case *document.Document:
		da = x
		db, _ = b.Doc.(*document.Document)
	}
	if da == nil || db == nil {
		c.Note = fmt.Sprintf("step statistics compare run results; %s is a %s run and %s a %s run", a.Meta.ID, a.Meta.Command, b.Meta.ID, b.Meta.Command)
		return c, nil
	}
	sa, err := samples.get(ctx, a.Meta.ID)
	if err != nil {
		return c, err
	}
	sb, err := samples.get(ctx, b.Meta.ID)
	if err != nil {
		return c, err
	}
	idxB := map[string]int{}
	for i, r := range db.Results {
		idxB[StepKey(r)] = i
	}
	rng := rand.New(rand.NewPCG(1, 2)) // reproducible intervals
	for i, ra := range da.Results {
		j, ok := idxB[StepKey(ra)]
		if !ok {
			continue
		}
		rb := db.Results[j]
		sc := StepComparison{Step: StepKey(ra),
			A: StepStats{ra.TotalMs.P50, ra.TotalMs.P90, ra.TotalMs.P99, ra.MBps.P50, ra.Count},
			B: StepStats{rb.TotalMs.P50, rb.TotalMs.P90, rb.TotalMs.P99, rb.MBps.P50, rb.Count}}
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
		if srcA == "samples" && srcB == "samples" {
			p := stats.MannWhitney(va, vb)
			sc.MannWhitneyP = &p
		}
		sc.Verdict = Verdict(len(va), len(vb), Significant(sc.DeltaP50, sc.MannWhitneyP), sc.DeltaP50.Delta)
		c.Steps = append(c.Steps, sc)
	}
	c.Crossovers = Crossovers(a, b)
	return c, nil
}

// Crossovers fits total = TTFB + size/rate to the throughput sweeps of two
// runs of different targets and finds where the lines cross.
func Crossovers(a, b *Run) []document.Crossover {
	da, okA := a.Doc.(*document.Document)
	db, okB := b.Doc.(*document.Document)
	if !okA || !okB || Label(a) == Label(b) && a.Meta.TargetURL == b.Meta.TargetURL {
		return nil
	}
	var out []document.Crossover
	for _, op := range []string{"get", "put"} {
		fa, okA := fitSweep(da, op)
		fb, okB := fitSweep(db, op)
		if !okA || !okB {
			continue
		}
		x := document.Crossover{Op: op, A: Label(a), B: Label(b), ARunID: a.Meta.ID, BRunID: b.Meta.ID, FitA: fa, FitB: fb}
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

// Alpha is the Mann-Whitney p-value below which a change can count.
const Alpha = 0.05

// Significant decides whether a change of p50 counts: its bootstrap
// interval excludes zero and, where raw samples gave a Mann-Whitney p
// (mw not nil), p is below Alpha too.
func Significant(c stats.Change, mw *float64) bool {
	return c.Significant() && (mw == nil || *mw < Alpha)
}

// Verdict reads a comparison of nA and nB values whose p50 changed by
// delta (B minus A).
func Verdict(nA, nB int, significant bool, delta float64) string {
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

// compareStartup compares two environments scenario by scenario, from the
// wall time of every run.
func compareStartup(c *Comparison, a, b *document.StartupDocument) {
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
		sc := StepComparison{Step: "startup " + sa.Scenario + " wall", Source: "samples",
			A: StepStats{P50: sa.WallMs.Median, P90: sa.WallMs.P90, P99: sa.WallMs.P99, Count: int64(len(sa.WallSamplesMs))},
			B: StepStats{P50: sb.WallMs.Median, P90: sb.WallMs.P90, P99: sb.WallMs.P99, Count: int64(len(sb.WallSamplesMs))}}
		sc.DeltaP50 = stats.BootstrapQuantile(sa.WallSamplesMs, sb.WallSamplesMs, 0.5, bootstrapRounds, rng)
		sc.DeltaP99 = stats.BootstrapQuantile(sa.WallSamplesMs, sb.WallSamplesMs, 0.99, bootstrapRounds, rng)
		p := stats.MannWhitney(sa.WallSamplesMs, sb.WallSamplesMs)
		sc.MannWhitneyP = &p
		sc.Verdict = Verdict(len(sa.WallSamplesMs), len(sb.WallSamplesMs), Significant(sc.DeltaP50, &p), sc.DeltaP50.Delta)
		c.Steps = append(c.Steps, sc)
	}
}

// NewSampleCache reads kept samples from st, each run's once.
func NewSampleCache(st *results.Store) *SampleCache { return &SampleCache{st: st} }

// ChangedFirst orders step comparisons for reading: the steps whose
// verdict is not "no significant difference" first, then the rest, each
// in their original order.
func ChangedFirst(steps []StepComparison) []StepComparison {
	out := make([]StepComparison, 0, len(steps))
	for _, s := range steps {
		if s.Verdict != "no significant difference" {
			out = append(out, s)
		}
	}
	for _, s := range steps {
		if s.Verdict == "no significant difference" {
			out = append(out, s)
		}
	}
	return out
}

// CompareAll compares the first of the saved runs ids names with each of
// the others, in order, each comparison with its findings.
func CompareAll(ctx context.Context, st *results.Store, ids []string) ([]Comparison, error) {
	var runs []*Run
	for _, id := range ids {
		sr, err := Load(ctx, st, id)
		if err != nil {
			return nil, err
		}
		runs = append(runs, sr)
	}
	samples := NewSampleCache(st)
	var comps []Comparison
	for _, b := range runs[1:] {
		c, err := Compare(ctx, samples, runs[0], b)
		if err != nil {
			return nil, err
		}
		AnnotateComparison(&c)
		comps = append(comps, c)
	}
	return comps, nil
}

// AnnotateSaved gives a saved run read back its findings and cost at
// prices (runs saved before findings existed get them; --prices reprices).
func AnnotateSaved(sr *Run, p Prices) {
	switch d := sr.Doc.(type) {
	case *document.Document:
		Annotate(d, p)
	case *document.StrategiesDocument:
		AnnotateStrategies(d, p)
	}
}

// cutShort is the run's note of being cut short, if it was.
func cutShort(sr *Run) *document.CutShort {
	if sr.Doc == nil {
		return nil
	}
	return sr.Doc.Head().CutShort
}
