// Package analysis holds the decisions objbench draws from measurements:
// comparisons of saved runs (bootstrap intervals, Mann-Whitney, verdicts),
// crossover fits between targets, and the strategies accounting with its
// saving sentence. Commands and the report share it; it renders nothing.
package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
)

// Run is a saved run with its document decoded by the command that wrote
// it: Doc for run and probe, Strategies, or Startup (the others nil).
type Run struct {
	Meta       results.Run
	Steps      []results.Step
	Doc        *document.Document
	Strategies *document.StrategiesDocument
	Startup    *document.StartupDocument
	// Explain is an `objbench explain` document (nil otherwise).
	Explain *document.ExplainDocument
}

// Load reads a saved run and decodes its document by command.
func Load(ctx context.Context, st *results.Store, id string) (*Run, error) {
	run, steps, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return Decode(run, steps)
}

// LoadAll reads the saved runs ids name (IDs or unique prefixes), each
// once, in order; with none, the newest run.
func LoadAll(ctx context.Context, st *results.Store, ids []string) ([]*Run, error) {
	if len(ids) == 0 {
		runs, err := st.List(ctx, results.Filter{Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			return nil, fmt.Errorf("no saved runs in the results database: run 'objbench run' first")
		}
		ids = []string{runs[0].ID}
	}
	var out []*Run
	seen := map[string]bool{}
	for _, id := range ids {
		sr, err := Load(ctx, st, id)
		if err != nil {
			return nil, err
		}
		if !seen[sr.Meta.ID] {
			seen[sr.Meta.ID] = true
			out = append(out, sr)
		}
	}
	return out, nil
}

// Decode decodes a run's document by the command that made it.
func Decode(run results.Run, steps []results.Step) (*Run, error) {
	sr := &Run{Meta: run, Steps: steps}
	switch run.Command {
	case "run", "probe":
		sr.Doc = &document.Document{}
		if err := json.Unmarshal(run.Document, sr.Doc); err != nil {
			return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
		}
	case "strategies":
		sr.Strategies = &document.StrategiesDocument{}
		if err := json.Unmarshal(run.Document, sr.Strategies); err != nil {
			return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
		}
	case "startup":
		sr.Startup = &document.StartupDocument{}
		if err := json.Unmarshal(run.Document, sr.Startup); err != nil {
			return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
		}
	case "explain":
		sr.Explain = &document.ExplainDocument{}
		if err := json.Unmarshal(run.Document, sr.Explain); err != nil {
			return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
		}
	}
	return sr, nil
}

// FormatLabels writes labels as k=v pairs sorted by key, comma-separated.
func FormatLabels(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

// FromDocument is a run held in memory (one just measured) as Load would
// read it back, without decoding its stored JSON.
func FromDocument(meta results.Run, steps []results.Step, d document.Doc) *Run {
	r := &Run{Meta: meta, Steps: steps}
	switch d := d.(type) {
	case *document.Document:
		r.Doc = d
	case *document.StrategiesDocument:
		r.Strategies = d
	case *document.StartupDocument:
		r.Startup = d
	case *document.ExplainDocument:
		r.Explain = d
	}
	return r
}
