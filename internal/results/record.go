package results

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/objbench/objbench/internal/document"
)

// NewRun is the database row of a finished (or interrupted) document,
// with the document encoded once, as --json prints it.
func NewRun(d document.Doc) (Run, error) {
	e := d.Head()
	b, err := document.Encode(d)
	if err != nil {
		return Run{}, err
	}
	host, _ := os.Hostname()
	return Run{ID: e.RunID, Command: e.Command, StartedAt: e.Started(), DurationS: e.DurationS,
		TargetURL: e.Target.URL, Provider: e.Target.Provider, Endpoint: e.Target.Endpoint, Host: host,
		Labels: e.Labels, Interrupted: e.Interrupted, Document: json.RawMessage(bytes.TrimSpace(b))}, nil
}

// Steps are the stored rows of a document's steps (run and probe
// results, strategies rows, startup scenarios), each with its summary as
// JSON from the document's finite copy; histograms[i], when given, are
// step i's encoded histograms.
func Steps(d document.Doc, histograms []map[string][]byte) ([]Step, error) {
	var steps []Step
	add := func(s Step, summary any) error {
		b, err := json.Marshal(summary)
		if err != nil {
			return fmt.Errorf("step %d: %w", s.Index, err)
		}
		s.Summary = b
		if s.Index < len(histograms) {
			s.Histograms = histograms[s.Index]
		}
		steps = append(steps, s)
		return nil
	}
	var err error
	switch c := document.Clean(d).(type) {
	case *document.Document:
		for i, r := range c.Results {
			if err == nil {
				err = add(Step{Index: i, Workload: r.Workload, Op: r.Op, SizeBytes: r.SizeBytes, Concurrency: r.Concurrency, Strategy: r.Strategy}, r)
			}
		}
	case *document.StrategiesDocument:
		for i, r := range c.Strategies {
			if err == nil {
				err = add(Step{Index: i, Workload: "strategies", Op: r.Op, SizeBytes: r.SizeBytes, Concurrency: r.Concurrency, Strategy: r.Strategy}, r)
			}
		}
	case *document.StartupDocument:
		for i, s := range c.Scenarios {
			if err == nil {
				err = add(Step{Index: i, Workload: "startup", Op: s.Scenario, Strategy: c.Runtime}, s)
			}
		}
	}
	return steps, err
}

// SaveAt saves a run in the database at path, opening and closing it.
func SaveAt(ctx context.Context, path string, run Run, steps []Step, kept []SampleRow) error {
	st, err := Open(ctx, path)
	if err != nil {
		return fmt.Errorf("results database: %w", err)
	}
	err = st.Save(ctx, run, steps, kept)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

// ParseDate reads a --since or --until date: RFC 3339, or a local
// 2006-01-02T15:04 or 2006-01-02; "" is no bound.
func ParseDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: use a date such as 2026-11-22 or 2026-11-22T15:04:05Z", s)
}
