package analysis

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
)

// openStore opens a results database of the test's own.
func openStore(t *testing.T) *results.Store {
	t.Helper()
	st, err := results.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// saveDoc saves d in st and returns its run ID.
func saveDoc(t *testing.T, st *results.Store, d *document.Document) string {
	t.Helper()
	run, err := results.NewRun(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Save(context.Background(), run, nil, nil); err != nil {
		t.Fatal(err)
	}
	return run.ID
}

func TestLoadAll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	if _, err := LoadAll(ctx, st, nil); err == nil {
		t.Error("no runs: want an error")
	}
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 2 {
		d := &document.Document{Envelope: document.NewEnvelope("run", document.NewRunID(), start.Add(time.Duration(i)*time.Minute))}
		ids = append(ids, saveDoc(t, st, d))
	}
	got, err := LoadAll(ctx, st, nil)
	if err != nil || len(got) != 1 || got[0].Meta.ID != ids[1] {
		t.Fatalf("no ids: %v, %v; want the newest, %s", got, err, ids[1])
	}
	got, err = LoadAll(ctx, st, []string{ids[1], ids[0], ids[1]})
	if err != nil || len(got) != 2 || got[0].Meta.ID != ids[1] || got[1].Meta.ID != ids[0] || got[0].Doc == nil {
		t.Fatalf("%v, %v; want runs %s then %s, once each, decoded", got, err, ids[1], ids[0])
	}
	if _, err := LoadAll(ctx, st, []string{"nope"}); err == nil {
		t.Error("an unknown ID: want an error")
	}
}

func TestCompareAllAndAnnotateSaved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	var ids []string
	for i, target := range []string{"s3://a", "s3://b", "s3://c"} {
		d := &document.Document{Envelope: document.NewEnvelope("run", document.NewRunID(), time.Date(2026, 11, 23, 12, i, 0, 0, time.UTC))}
		d.Target.URL, d.Target.Provider = target, "s3"
		d.Results = []document.Result{{Op: "get", Count: 10, RequestsPerOp: 1, WallS: 1}}
		ids = append(ids, saveDoc(t, st, d))
	}
	comps, err := CompareAll(ctx, st, ids)
	if err != nil || len(comps) != 2 {
		t.Fatalf("%d comparisons, %v; want the first run against each other", len(comps), err)
	}
	if _, err := CompareAll(ctx, st, []string{ids[0], "nope"}); err == nil {
		t.Error("an unknown run: want an error")
	}
	sr, err := Load(ctx, st, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	AnnotateSaved(sr, DefaultPrices())
	if sr.Doc.(*document.Document).Cost == nil {
		t.Error("a saved run read back: no cost after AnnotateSaved")
	}
}
