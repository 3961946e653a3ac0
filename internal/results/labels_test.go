package results

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
)

func TestParseLabels(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   []string
		want map[string]string
		err  bool
	}{
		{in: nil, want: map[string]string{}},
		{in: []string{"env=laptop", " region = eu-west-1 ", "empty="}, want: map[string]string{"env": "laptop", "region": "eu-west-1", "empty": ""}},
		{in: []string{"a=1", "a=2"}, want: map[string]string{"a": "2"}},
		{in: []string{"novalue"}, err: true},
		{in: []string{"=v"}, err: true},
	}
	for _, c := range cases {
		got, err := ParseLabels(c.in)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "--label") {
				t.Errorf("%q: %v, want an error naming --label", c.in, err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestOpenAtDefaultAndRecord(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	ctx := context.Background()
	d := &document.Document{Envelope: document.NewEnvelope("run", document.NewRunID(), time.Now())}
	d.Results = []document.Result{{Op: "get", Count: 1}}
	run, steps, err := Record(d, nil)
	if err != nil || run.ID != d.RunID || len(steps) != 1 {
		t.Fatalf("Record: %+v, %d steps, %v", run, len(steps), err)
	}
	if err := SaveAt(ctx, "", run, steps, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "objbench", "results.db")); err != nil {
		t.Errorf("no --db: not saved at the default path: %v", err)
	}
	st, err := OpenAt(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, _, err := st.Get(ctx, run.ID); err != nil || got.ID != run.ID {
		t.Errorf("read back: %v, %v", got.ID, err)
	}
	if _, err := OpenAt(ctx, filepath.Join(dir, "no", "such", "\x00")); err == nil || !strings.HasPrefix(err.Error(), "results database:") {
		t.Errorf("a path that cannot open: %v", err)
	}
}

func TestNewFilter(t *testing.T) {
	t.Parallel()
	f, err := NewFilter("s3://b", "run", "2026-11-01", "2026-11-02T10:00", []string{"env=a"}, 5)
	if err != nil || f.Target != "s3://b" || f.Command != "run" || f.Limit != 5 || f.Labels["env"] != "a" || f.Since.IsZero() || !f.Until.After(f.Since) {
		t.Errorf("%+v, %v", f, err)
	}
	for _, c := range []struct {
		since, until string
		labels       []string
		limit        int
		err          string
	}{
		{since: "yesterday", err: "--since"},
		{until: "11/02/2026", err: "--until"},
		{labels: []string{"x"}, err: "--label"},
		{limit: -1, err: "--limit"},
	} {
		if _, err := NewFilter("", "", c.since, c.until, c.labels, c.limit); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want an error naming %s", c, err, c.err)
		}
	}
}

// TestSaveWithin saves with a deadline of its own, and fails (not hangs)
// when the deadline has passed.
func TestSaveWithin(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "r.db")
	d := &document.Document{Envelope: document.NewEnvelope("run", document.NewRunID(), time.Now())}
	d.Results = []document.Result{{Op: "get", Count: 1}}
	run, steps, err := Record(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := SaveWithin(time.Minute, db, run, steps, nil); err != nil {
		t.Fatal(err)
	}
	if err := SaveWithin(-time.Second, filepath.Join(t.TempDir(), "late.db"), run, steps, nil); err == nil {
		t.Error("saved past its deadline")
	}
}
