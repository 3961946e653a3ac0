package results

import (
	"path/filepath"
	"testing"
)

// TestLambdaPath: on Lambda the database goes under the temporary folder,
// unless --db or $XDG_DATA_HOME says where.
func TestLambdaPath(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cases := []struct {
		xdg, path, want string
	}{
		{"", "", filepath.Join(tmp, "objbench", "results.db")},
		{"", "/var/db/r.db", "/var/db/r.db"},
		{"/data", "", ""}, // DefaultPath's $XDG_DATA_HOME/objbench/results.db
		{"/data", ":memory:", ":memory:"},
	}
	for _, c := range cases {
		t.Setenv("XDG_DATA_HOME", c.xdg)
		if got := LambdaPath(c.path); got != c.want {
			t.Errorf("XDG_DATA_HOME=%q, path %q: %q, want %q", c.xdg, c.path, got, c.want)
		}
	}
}
