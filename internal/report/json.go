package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
)

// WriteJSON writes d as the indented objbench/v1 document. Field order is
// the struct order and map keys are sorted, so output is stable; NaN and
// infinities, which JSON cannot carry, are written as 0. d is not modified.
func WriteJSON(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(clean(d)); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// clean returns a copy of d whose floats are all finite, sharing nothing
// mutable with d.
func clean(d *Document) *Document {
	c := *d
	c.DurationS = sanitize(c.DurationS)
	if d.Lab != nil {
		l := *d.Lab
		l.RTTms, l.JitterMs = sanitize(l.RTTms), sanitize(l.JitterMs)
		c.Lab = &l
	}
	c.Options = maps.Clone(d.Options)
	c.Results = make([]Result, len(d.Results)) // [] rather than null when empty
	for i, r := range d.Results {
		r.ErrorsByClass = maps.Clone(r.ErrorsByClass)
		r.RequestsPerOp, r.WallS = sanitize(r.RequestsPerOp), sanitize(r.WallS)
		r.TTFBms, r.TotalMs = cleanDist(r.TTFBms), cleanDist(r.TotalMs)
		r.MBps = Throughput{P50: sanitize(r.MBps.P50), P90: sanitize(r.MBps.P90), P99: sanitize(r.MBps.P99)}
		r.AggregateMBps = sanitize(r.AggregateMBps)
		r.PhasesMs = cleanPhases(r.PhasesMs)
		r.ReusedFraction = sanitize(r.ReusedFraction)
		r.ClientCPUusPerOp, r.ClientCPUsPerGB = sanitize(r.ClientCPUusPerOp), sanitize(r.ClientCPUsPerGB)
		r.FirstRequest, r.LaterRequests = cleanGroup(r.FirstRequest), cleanGroup(r.LaterRequests)
		c.Results[i] = r
	}
	return &c
}

func cleanDist(d Dist) Dist {
	return Dist{Min: sanitize(d.Min), P50: sanitize(d.P50), P90: sanitize(d.P90), P99: sanitize(d.P99),
		P999: sanitize(d.P999), Max: sanitize(d.Max), Mean: sanitize(d.Mean), Stddev: sanitize(d.Stddev)}
}

func cleanPhases(m map[string]PhaseDist) map[string]PhaseDist {
	if m == nil {
		return nil
	}
	out := make(map[string]PhaseDist, len(m))
	for k, p := range m {
		out[k] = PhaseDist{P50: sanitize(p.P50), P90: sanitize(p.P90), P99: sanitize(p.P99), P999: sanitize(p.P999), Mean: sanitize(p.Mean)}
	}
	return out
}

func cleanGroup(g Group) Group {
	g.TTFBms, g.TotalMs = cleanDist(g.TTFBms), cleanDist(g.TotalMs)
	g.PhasesMs = cleanPhases(g.PhasesMs)
	g.ReusedFraction = sanitize(g.ReusedFraction)
	return g
}
