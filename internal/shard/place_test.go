package shard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/usage"
)

func TestPlaceDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, err := OpenPlace(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{Index: 1, Count: 2, RunID: "r1"}
	if err := p.CheckWritable(ctx, s); err != nil {
		t.Fatal(err)
	}
	if names, _ := p.List(ctx, "", ""); len(names) != 0 {
		t.Fatalf("the write check left %v", names)
	}
	if err := p.Put(ctx, DocName(s), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := p.CheckWritable(ctx, s); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a second run with the same id: %v", err)
	}
	if _, err := p.Get(ctx, "r1/shard-0.json"); !errors.Is(err, ErrNotExist) {
		t.Fatalf("missing document: %v", err)
	}
	if _, err := OpenPlace(ctx, "ftp://x/y", nil); err == nil {
		t.Fatal("ftp:// accepted")
	}
}

// TestStartInSharedByShard0: shard 0 resolves --start-in and writes it;
// the others, started before or after, read the same time.
func TestStartInSharedByShard0(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	p, _ := OpenPlace(ctx, dir, nil)
	var wg sync.WaitGroup
	got := make([]time.Time, 3)
	for i := 1; i < 3; i++ { // the others first: they wait for shard 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			t1, err := ResolveStart(ctx, "", 2*time.Second, Spec{Index: i, Count: 3, RunID: "r"}, p)
			if err != nil {
				t.Error(err)
			}
			got[i] = t1
		}()
	}
	time.Sleep(700 * time.Millisecond)
	t0, err := ResolveStart(ctx, "", 2*time.Second, Spec{Index: 0, Count: 3, RunID: "r"}, p)
	if err != nil {
		t.Fatal(err)
	}
	got[0] = t0
	wg.Wait()
	if !got[1].Equal(t0) || !got[2].Equal(t0) || time.Until(t0) > 2*time.Second {
		t.Fatalf("start times %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "r", "start.json")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at    string
		in    time.Duration
		want  string
		field string
	}{
		{"yesterday", 0, "RFC 3339", "StartAt"},
		{"2026-11-23T18:00:00Z", time.Second, "give one", "StartAt"},
		{"", -time.Second, "must be positive", "StartIn"},
		{"", time.Second, "needs ResultsTo", "StartIn"},
	} {
		_, err := ResolveStart(ctx, tc.at, tc.in, Spec{Index: 1, Count: 2, RunID: "r"}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || usage.FieldOf(err) != tc.field || strings.Contains(err.Error(), "--") {
			t.Errorf("start at %q in %s: %v (field %q), want %q naming the field %q", tc.at, tc.in, err, usage.FieldOf(err), tc.want, tc.field)
		}
	}
}
