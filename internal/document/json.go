package document

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
)

// Doc is any objbench/v1 document: an Envelope, then a body.
type Doc interface {
	Head() *Envelope
	// finite is a copy with every float finite (NaN and infinities, which
	// JSON cannot carry, as 0), sharing nothing mutable with the original.
	finite() Doc
}

// Clean is a copy of d with every float finite, for encoders that JSON's
// NaN would stop.
func Clean(d Doc) Doc { return d.finite() }

// Encode is d as --json prints it and the results database keeps it:
// indented, fields in struct order, map keys sorted, every float finite,
// ending in a newline. d is not modified. This is the one place NaN is cleaned.
func Encode(d Doc) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d.finite()); err != nil {
		return nil, fmt.Errorf("encode %s document: %w", d.Head().Command, err)
	}
	return buf.Bytes(), nil
}

// finite returns a copy of d whose floats are all finite, sharing nothing
// mutable with d.
func (d *Document) finite() Doc {
	c := *d
	c.DurationS = Finite(c.DurationS)
	if d.Lab != nil {
		l := *d.Lab
		l.RTTms, l.JitterMs = Finite(l.RTTms), Finite(l.JitterMs)
		c.Lab = &l
	}
	c.Options = maps.Clone(d.Options)
	c.Results = make([]Result, len(d.Results)) // [] rather than null when empty
	for i, r := range d.Results {
		r.ErrorsByClass = maps.Clone(r.ErrorsByClass)
		r.RequestsPerOp, r.WallS = Finite(r.RequestsPerOp), Finite(r.WallS)
		r.TTFBms, r.TotalMs = cleanDist(r.TTFBms), cleanDist(r.TotalMs)
		r.MBps = Throughput{P50: Finite(r.MBps.P50), P90: Finite(r.MBps.P90), P99: Finite(r.MBps.P99)}
		r.AggregateMBps = Finite(r.AggregateMBps)
		r.PhasesMs = cleanPhases(r.PhasesMs)
		r.ReusedFraction = Finite(r.ReusedFraction)
		r.ExpectSent, r.ExpectWaited = Finite(r.ExpectSent), Finite(r.ExpectWaited)
		r.ClientCPUusPerOp, r.ClientCPUsPerGB = Finite(r.ClientCPUusPerOp), Finite(r.ClientCPUsPerGB)
		r.ClientRunWaitUsPerOp = Finite(r.ClientRunWaitUsPerOp)
		r.FirstRequest, r.LaterRequests = cleanGroup(r.FirstRequest), cleanGroup(r.LaterRequests)
		r.cleanOpen()
		c.Results[i] = r
	}
	c.Findings, c.Cost = cleanFindings(d.Findings), cleanCost(d.Cost)
	return &c
}

func cleanDist(d Dist) Dist {
	d.Min, d.P50, d.P90, d.P99 = Finite(d.Min), Finite(d.P50), Finite(d.P90), Finite(d.P99)
	d.P999, d.Max, d.Mean, d.Stddev = Finite(d.P999), Finite(d.Max), Finite(d.Mean), Finite(d.Stddev)
	return d
}

func cleanPhases(m map[string]PhaseDist) map[string]PhaseDist {
	if m == nil {
		return nil
	}
	out := make(map[string]PhaseDist, len(m))
	for k, p := range m {
		out[k] = cleanDist(p)
	}
	return out
}

func cleanGroup(g Group) Group {
	g.TTFBms, g.TotalMs = cleanDist(g.TTFBms), cleanDist(g.TotalMs)
	g.PhasesMs = cleanPhases(g.PhasesMs)
	g.ReusedFraction = Finite(g.ReusedFraction)
	return g
}

func (d *StartupDocument) finite() Doc {
	c := *d
	c.DurationS = Finite(c.DurationS)
	c.Options, c.Labels = maps.Clone(d.Options), maps.Clone(d.Labels)
	c.Scenarios = make([]StartupScenario, len(d.Scenarios))
	for i, s := range d.Scenarios {
		s.WallMs, s.WallMsTrimmed = cleanStartupStats(s.WallMs), cleanStartupStats(s.WallMsTrimmed)
		s.LoadMs, s.LoadMsTrimmed = cleanStartupStats(s.LoadMs), cleanStartupStats(s.LoadMsTrimmed)
		h := make([]HistBin, len(s.Histogram))
		for j, b := range s.Histogram {
			h[j] = HistBin{FromMs: Finite(b.FromMs), ToMs: Finite(b.ToMs), Count: b.Count}
		}
		s.Histogram = h
		ws := make([]float64, len(s.WallSamplesMs))
		for j, v := range s.WallSamplesMs {
			ws[j] = Finite(v)
		}
		s.WallSamplesMs = ws
		c.Scenarios[i] = s
	}
	return &c
}

func cleanStartupStats(s StartupStats) StartupStats {
	return StartupStats{Median: Finite(s.Median), Mean: Finite(s.Mean), Stddev: Finite(s.Stddev),
		P90: Finite(s.P90), P99: Finite(s.P99), Min: Finite(s.Min), Max: Finite(s.Max)}
}

func (d *StrategiesDocument) finite() Doc {
	c := *d
	c.Strategies = make([]StrategyRow, len(d.Strategies))
	for i, r := range d.Strategies {
		r.WallS, r.ObjectsPerS, r.P50ms, r.P99ms = Finite(r.WallS), Finite(r.ObjectsPerS), Finite(r.P50ms), Finite(r.P99ms)
		r.RequestsPerObject, r.RTTms, r.Speedup = Finite(r.RequestsPerObject), Finite(r.RTTms), Finite(r.Speedup)
		rtts := make(map[string]float64, len(r.RTTs))
		for k, v := range r.RTTs {
			rtts[k] = Finite(v)
		}
		r.RTTs = rtts
		r.CostPerMillionUSD = Finite(r.CostPerMillionUSD)
		c.Strategies[i] = r
	}
	c.Findings, c.Cost = cleanFindings(d.Findings), cleanCost(d.Cost)
	return &c
}

// EncodeRounds is the JSON of probe rounds: the one document, or
// {"schema", "probes": [...]} for several.
func EncodeRounds(docs []*Document) ([]byte, error) {
	if len(docs) == 1 {
		return Encode(docs[0])
	}
	var parts []json.RawMessage
	for _, d := range docs {
		b, err := Encode(d)
		if err != nil {
			return nil, err
		}
		parts = append(parts, json.RawMessage(bytes.TrimSpace(b)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"schema": Schema, "probes": parts}); err != nil {
		return nil, fmt.Errorf("encode probe rounds: %w", err)
	}
	return buf.Bytes(), nil
}

func cleanFindings(fs []Finding) []Finding {
	if fs == nil {
		return nil
	}
	out := make([]Finding, len(fs))
	for i, f := range fs {
		if f.Evidence != nil {
			ev := make(map[string]float64, len(f.Evidence))
			for k, v := range f.Evidence {
				ev[k] = Finite(v)
			}
			f.Evidence = ev
		}
		out[i] = f
	}
	return out
}

func cleanCost(c *Cost) *Cost {
	if c == nil {
		return nil
	}
	x := *c
	x.RequestsUSD, x.EgressUSD, x.TotalUSD = Finite(x.RequestsUSD), Finite(x.EgressUSD), Finite(x.TotalUSD)
	x.PerMillionObjectsUSD, x.PerHourUSD, x.WallS = Finite(x.PerMillionObjectsUSD), Finite(x.PerHourUSD), Finite(x.WallS)
	x.ByOp = make([]OpCost, len(c.ByOp))
	for i, o := range c.ByOp {
		o.RequestsUSD, o.EgressUSD, o.PerMillionObjectsUSD = Finite(o.RequestsUSD), Finite(o.EgressUSD), Finite(o.PerMillionObjectsUSD)
		x.ByOp[i] = o
	}
	return &x
}

// Docs is a list of documents of one type as Docs.
func Docs[T Doc](ds []T) []Doc {
	out := make([]Doc, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}
