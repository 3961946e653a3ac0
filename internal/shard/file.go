package shard

import (
	"encoding/json"
	"fmt"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// File is a shard's document as it is written to the results place: the
// run's objbench/v1 document with its shard block, then, per result, the
// encoded histograms and intervals that merge adds together.
type File struct {
	*document.Document
	Steps []StepData `json:"shard_steps"`
}

// StepData is one result's histograms (HdrHistogram V2 compressed, base64
// text: "ttfb", "total", and the "*_uncorrected" of an open-loop step)
// and its intervals.
type StepData struct {
	Histograms map[string]string `json:"histograms"`
	Series     *stats.Columns    `json:"series,omitempty"`
}

// Encode writes a shard's document with each result's histograms (as the
// runner encoded them for the results database, series included).
func Encode(d *document.Document, hists []map[string][]byte) ([]byte, error) {
	if d.Shard == nil {
		return nil, fmt.Errorf("encode shard document: no shard block")
	}
	clean, _ := document.Clean(d).(*document.Document)
	f := File{Document: clean, Steps: make([]StepData, len(d.Results))}
	for i := range f.Steps {
		sd := StepData{Histograms: map[string]string{}}
		if i < len(hists) {
			for m, b := range hists[i] {
				if m == stats.SeriesMetric {
					s, err := stats.DecodeSeries(b)
					if err != nil {
						return nil, err
					}
					c, err := stats.ToColumns(s)
					if err != nil {
						return nil, err
					}
					sd.Series = &c
					continue
				}
				sd.Histograms[m] = string(b)
			}
		}
		f.Steps[i] = sd
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode shard document: %w", err)
	}
	return b, nil
}

// Decode reads a shard document and checks that it is one: the schema,
// the command, the shard block, a run id, one histogram set per result.
func Decode(b []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("corrupted shard document: %w", err)
	}
	switch {
	case f.Document == nil || f.Schema == "":
		return nil, fmt.Errorf("not an objbench document (no schema)")
	case f.Schema != document.Schema:
		return nil, fmt.Errorf("schema %q, but this objbench reads %q", f.Schema, document.Schema)
	case f.Shard == nil:
		return nil, fmt.Errorf("a %q document without a shard block: not written by run --results-to", f.Command)
	case f.RunID == "":
		return nil, fmt.Errorf("corrupted shard document: no run_id")
	case len(f.Steps) != len(f.Results):
		return nil, fmt.Errorf("corrupted shard document: %d results but %d histogram sets", len(f.Results), len(f.Steps))
	case f.Shard.Count <= 0 || f.Shard.Index < 0 || f.Shard.Index >= f.Shard.Count:
		return nil, fmt.Errorf("corrupted shard document: shard %d of %d", f.Shard.Index, f.Shard.Count)
	}
	for i, sd := range f.Steps {
		if sd.Series == nil {
			continue
		}
		if err := sd.Series.Check(); err != nil {
			return nil, fmt.Errorf("corrupted shard document: result %d: %w", i, err)
		}
	}
	return &f, nil
}
