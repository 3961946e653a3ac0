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
// it. Doc is one of *document.Document (run, probe, merge),
// *document.StrategiesDocument, *document.StartupDocument or
// *document.ExplainDocument, or nil for a command with none; each consumer
// takes it apart with one type switch.
type Run struct {
	Meta  results.Run
	Steps []results.Step
	Doc   document.Doc
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
	var d document.Doc
	switch run.Command {
	case "run", "probe", "merge":
		d = &document.Document{}
	case "strategies":
		d = &document.StrategiesDocument{}
	case "startup":
		d = &document.StartupDocument{}
	case "explain":
		d = &document.ExplainDocument{}
	default:
		return &Run{Meta: run, Steps: steps}, nil
	}
	if err := json.Unmarshal(run.Document, d); err != nil {
		return nil, fmt.Errorf("run %s: stored document: %w", run.ID, err)
	}
	return &Run{Meta: run, Steps: steps, Doc: d}, nil
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
	return &Run{Meta: meta, Steps: steps, Doc: d}
}

// ProbeRuns are a probe's round documents as runs of command probe, as
// they would be saved: for a report drawn from memory.
func ProbeRuns(docs []*document.Document) []*Run {
	var srs []*Run
	for _, d := range docs {
		srs = append(srs, &Run{Meta: results.Run{ID: d.RunID, Command: "probe", TargetURL: d.Target.URL, Labels: d.Labels}, Doc: d})
	}
	return srs
}
