package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
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

// SaveAt saves a run in the database at path (see OpenAt), opening and
// closing it.
func SaveAt(ctx context.Context, path string, run Run, steps []Step, kept stats.KeptSeq) error {
	st, err := OpenAt(ctx, path)
	if err != nil {
		return err
	}
	err = st.Save(ctx, run, steps, kept)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

// SaveWithin is SaveAt with a deadline of its own, d from now: a run is
// saved after its context may have been cancelled (Ctrl-C), and a
// database that hangs must not hold the results printed already.
func SaveWithin(d time.Duration, path string, run Run, steps []Step, kept stats.KeptSeq) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return SaveAt(ctx, path, run, steps, kept)
}

// OpenAt opens the database at path, or at DefaultPath when path is ""
// (no --db); its errors say they are the results database's.
func OpenAt(ctx context.Context, path string) (*Store, error) {
	var err error
	if path == "" {
		if path, err = DefaultPath(); err != nil {
			return nil, fmt.Errorf("results database: %w", err)
		}
	}
	st, err := Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("results database: %w", err)
	}
	return st, nil
}

// Record is a finished document as the database keeps it: its run and
// its steps with their histograms (one map per step, or none).
func Record(d document.Doc, histograms []map[string][]byte) (Run, []Step, error) {
	run, err := NewRun(d)
	if err != nil {
		return run, nil, err
	}
	steps, err := Steps(d, histograms)
	return run, steps, err
}

// ParseLabels reads --label k=v pairs (spaces around each side trimmed).
func ParseLabels(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("--label %q: use key=value", p)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
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

// NewFilter checks runs' filters as the user writes them: labels k=v,
// dates (see ParseDate) and a limit that is not negative.
func NewFilter(target, command, since, until string, labels []string, limit int) (Filter, error) {
	f := Filter{Target: target, Command: command, Limit: limit}
	var err error
	if f.Labels, err = ParseLabels(labels); err != nil {
		return f, err
	}
	if f.Since, err = ParseDate(since); err != nil {
		return f, fmt.Errorf("--since %w", err)
	}
	if f.Until, err = ParseDate(until); err != nil {
		return f, fmt.Errorf("--until %w", err)
	}
	if limit < 0 {
		return f, errors.New("--limit must not be negative")
	}
	return f, nil
}
