package html

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report/reporttest"
)

func TestCheckPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for path, ok := range map[string]bool{"": true, filepath.Join(dir, "r.html"): true, filepath.Join(dir, "no", "r.html"): false} {
		if err := CheckPath(path); (err == nil) != ok {
			t.Errorf("%q: %v", path, err)
		}
	}
}

func TestWriteProbesPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := reporttest.Fixture()
	d.Command = "probe"
	for _, c := range []struct {
		name  string
		path  string
		docs  []*document.Document
		wrote bool
	}{
		{"no --report", "", []*document.Document{d}, false},
		{"no round", filepath.Join(dir, "none.html"), nil, false},
		{"a round", filepath.Join(dir, "round.html"), []*document.Document{d, d}, true},
	} {
		if err := WriteProbesPage(c.path, c.docs); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.path == "" {
			continue
		}
		b, err := os.ReadFile(c.path)
		if wrote := err == nil && bytes.Contains(b, []byte("<html")); wrote != c.wrote {
			t.Errorf("%s: page written %v, want %v (%v)", c.name, wrote, c.wrote, err)
		}
	}
}
