package html

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
)

// PageInput turns saved runs into the page's input, with the crossover
// of every pair of runs against different targets.
func PageInput(srs []*analysis.Run, title string) HTMLInput {
	in := HTMLInput{Title: title, Generated: time.Now().UTC().Format(time.RFC3339)}
	for _, sr := range srs {
		in.Runs = append(in.Runs, pageRun(sr))
	}
	for i := range srs {
		for j := i + 1; j < len(srs); j++ {
			in.Crossovers = append(in.Crossovers, analysis.Crossovers(srs[i], srs[j])...)
		}
	}
	if in.Title == "" {
		in.Title = "objbench report"
		if len(in.Runs) == 1 {
			in.Title += ": " + in.Runs[0].Label
		}
	}
	return in
}

// pageRun is one saved run for the page: its document, its settings and
// its steps' quantiles read from the stored histograms.
func pageRun(sr *analysis.Run) HTMLRun {
	r := sr.Meta
	hr := HTMLRun{ID: r.ID, Label: analysis.Label(sr), Doc: sr.Doc}
	meta := map[string]string{
		"command": r.Command, "started": r.StartedAt.UTC().Format(time.RFC3339),
		"duration": strconv.FormatFloat(r.DurationS, 'f', 1, 64) + " s", "host": r.Host,
	}
	if r.TargetURL != "" {
		meta["target"] = r.TargetURL
	}
	if r.Provider != "" {
		meta["provider"] = r.Provider
	}
	if r.Endpoint != "" {
		meta["endpoint"] = r.Endpoint
	}
	for k, v := range r.Labels {
		meta["label "+k] = v
	}
	var opts map[string]string
	var client document.ClientInfo
	var lab *document.LabInfo
	var results []document.Result
	switch d := sr.Doc.(type) {
	case *document.Document:
		opts, client, lab = d.Options, d.Client, d.Lab
		if d.Target.Region != "" {
			meta["region"] = d.Target.Region
		}
		results = d.Results
	case *document.StrategiesDocument:
		opts, client, lab = d.Options, d.Client, d.Lab
	case *document.StartupDocument:
		opts, client = d.Options, d.Client
		meta["runtime"] = d.Runtime + " " + d.RuntimeVersion
		if d.EnvLabel != "" {
			meta["environment"] = d.EnvLabel
		}
	}
	maps.Copy(meta, prefixed("option ", opts))
	if client.Version != "" {
		meta["objbench"], meta["go"], meta["os"], meta["cpus"] = client.Version, client.Go, client.OS, strconv.Itoa(client.CPUs)
	}
	if lab != nil {
		meta["lab"] = fmt.Sprintf("%s API, profile %s, RTT %g ms, jitter %g ms, bandwidth %s, TLS %t",
			lab.API, lab.Profile, lab.RTTms, lab.JitterMs, orNone(lab.Bandwidth), lab.TLS)
	}
	hr.Meta = meta
	if _, ok := sr.Doc.(*document.Document); ok {
		hr.Quantiles = map[int]StepQuantiles{}
		for _, s := range sr.Steps {
			q, ok := stepQuantiles(s)
			if ok && s.Index < len(results) {
				hr.Quantiles[s.Index] = q
			}
			if b := s.Histograms[document.ShardRatesMetric]; len(b) > 0 && s.Index < len(results) {
				var rates []document.ShardRate
				if json.Unmarshal(b, &rates) == nil {
					if hr.ShardRates == nil {
						hr.ShardRates = map[int][]document.ShardRate{}
					}
					hr.ShardRates[s.Index] = rates
				}
			}
			if b := s.Histograms[stats.SeriesMetric]; len(b) > 0 && s.Index < len(results) {
				if iv, err := stats.DecodeSeries(b); err == nil {
					if hr.Series == nil {
						hr.Series = map[int][]stats.Interval{}
					}
					hr.Series[s.Index] = iv
				}
			}
		}
	}
	return hr
}

func prefixed(p string, m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[p+k] = v
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "unlimited"
	}
	return s
}

// stepQuantiles reads a step's stored TTFB and total histograms.
func stepQuantiles(s results.Step) (StepQuantiles, bool) {
	var q StepQuantiles
	for name, dst := range map[string]*[]float64{"ttfb": &q.TTFBms, "total": &q.TotalMs} {
		b := s.Histograms[name]
		if len(b) == 0 {
			return q, false
		}
		h, err := stats.DecodeHistogram(b)
		if err != nil || h.Count() == 0 {
			return q, false
		}
		*dst = h.Quantiles(QuantileLevels)
	}
	return q, true
}
