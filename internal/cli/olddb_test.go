package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOldDatabaseShowsAsBefore opens a results database written by the
// objbench of commit 3a0a4a0 (before the one document model: a run with
// labels, a strategies run, a probe round and a run on another profile)
// and checks that runs, show, export and compare print what that objbench
// printed, byte for byte (testdata/olddb, written by it).
func TestOldDatabaseShowsAsBefore(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/olddb/results.db")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "results.db")
	if err := os.WriteFile(db, src, 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		labelled   = "20261123T151239-dbf21c"
		strategies = "20261123T151240-5c4a8e"
		probe      = "20261123T151240-4e52d3"
		other      = "20261123T151240-f9d9da"
	)
	tests := []struct {
		golden string
		args   []string
	}{
		{"runs.txt", []string{"runs"}},
		{"runs.json", []string{"runs", "--json"}},
		{"compare.txt", []string{"compare", labelled, other}},
		{"compare.json", []string{"compare", "--json", labelled, other}},
	}
	for _, id := range []string{labelled, strategies, probe, other} {
		tests = append(tests,
			struct {
				golden string
				args   []string
			}{"show-" + id + ".txt", []string{"show", id}},
			struct {
				golden string
				args   []string
			}{"show-" + id + ".json", []string{"show", "--json", id}},
			struct {
				golden string
				args   []string
			}{"samples-" + id + ".csv", []string{"export", "--format", "samples", id}})
		if id != strategies {
			tests = append(tests, struct {
				golden string
				args   []string
			}{"export-" + id + ".csv", []string{"export", "--format", "csv", id}})
		}
	}
	for _, tt := range tests {
		want, err := os.ReadFile(filepath.Join("testdata/olddb", tt.golden))
		if err != nil {
			t.Fatal(err)
		}
		// Not runCLI: these documents are as the old objbench stored them,
		// without the fields added since, which today's schema requires.
		var outb, errb bytes.Buffer
		code := Main(context.Background(), append([]string{"--db", db}, tt.args...), &outb, &errb)
		out, errOut := outb.String(), errb.String()
		if code != 0 {
			t.Errorf("%s: exit %d: %s", strings.Join(tt.args, " "), code, errOut)
			continue
		}
		if tt.golden == "runs.json" {
			// A field added since, as the contract allows: runs --json
			// became an objbench/v1 document with its schema tag.
			want = bytes.Replace(want, []byte("{\n  \"runs\""), []byte("{\n  \"schema\": \"objbench/v1\",\n  \"runs\""), 1)
		}
		if out != string(want) {
			t.Errorf("%s: output differs from the old objbench's (%s)\ngot:\n%s\nwant:\n%s", strings.Join(tt.args, " "), tt.golden, out, want)
		}
	}
	// A strategies run has no step results to export as CSV: an error, as before.
	if code, _, _ := runCLI(t, context.Background(), "--db", db, "export", "--format", "csv", strategies); code != 1 {
		t.Errorf("export --format csv of a strategies run: exit %d, want 1", code)
	}
}
