package report

import (
	"github.com/objbench/objbench/internal/document"

	"encoding/json"
	"fmt"
	"io"
	"maps"
)

// WriteJSON writes d as the indented objbench/v1 document. Field order is
// the struct order and map keys are sorted, so output is stable; NaN and
// infinities, which JSON cannot carry, are written as 0. d is not modified.
func WriteJSON(w io.Writer, d *document.Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(clean(d)); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// clean returns a copy of d whose floats are all finite, sharing nothing
// mutable with d.
func clean(d *document.Document) *document.Document {
	c := *d
	c.DurationS = document.Finite(c.DurationS)
	if d.Lab != nil {
		l := *d.Lab
		l.RTTms, l.JitterMs = document.Finite(l.RTTms), document.Finite(l.JitterMs)
		c.Lab = &l
	}
	c.Options = maps.Clone(d.Options)
	c.Results = make([]document.Result, len(d.Results)) // [] rather than null when empty
	for i, r := range d.Results {
		r.ErrorsByClass = maps.Clone(r.ErrorsByClass)
		r.RequestsPerOp, r.WallS = document.Finite(r.RequestsPerOp), document.Finite(r.WallS)
		r.TTFBms, r.TotalMs = cleanDist(r.TTFBms), cleanDist(r.TotalMs)
		r.MBps = document.Throughput{P50: document.Finite(r.MBps.P50), P90: document.Finite(r.MBps.P90), P99: document.Finite(r.MBps.P99)}
		r.AggregateMBps = document.Finite(r.AggregateMBps)
		r.PhasesMs = cleanPhases(r.PhasesMs)
		r.ReusedFraction = document.Finite(r.ReusedFraction)
		r.FirstRequest, r.LaterRequests = cleanGroup(r.FirstRequest), cleanGroup(r.LaterRequests)
		c.Results[i] = r
	}
	return &c
}

func cleanDist(d document.Dist) document.Dist {
	return document.Dist{Min: document.Finite(d.Min), P50: document.Finite(d.P50), P90: document.Finite(d.P90), P99: document.Finite(d.P99),
		P999: document.Finite(d.P999), Max: document.Finite(d.Max), Mean: document.Finite(d.Mean), Stddev: document.Finite(d.Stddev)}
}

func cleanPhases(m map[string]document.PhaseDist) map[string]document.PhaseDist {
	if m == nil {
		return nil
	}
	out := make(map[string]document.PhaseDist, len(m))
	for k, p := range m {
		out[k] = document.PhaseDist{P50: document.Finite(p.P50), P90: document.Finite(p.P90), P99: document.Finite(p.P99), P999: document.Finite(p.P999), Mean: document.Finite(p.Mean)}
	}
	return out
}

func cleanGroup(g document.Group) document.Group {
	g.TTFBms, g.TotalMs = cleanDist(g.TTFBms), cleanDist(g.TotalMs)
	g.PhasesMs = cleanPhases(g.PhasesMs)
	g.ReusedFraction = document.Finite(g.ReusedFraction)
	return g
}
