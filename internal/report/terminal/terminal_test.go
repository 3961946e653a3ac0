package terminal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestIsTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(&bytes.Buffer{}) || IsTerminal(f) {
		t.Error("a buffer or a regular file counted as a terminal")
	}
}
