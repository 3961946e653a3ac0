package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteOutput(t *testing.T) {
	t.Parallel()
	hello := func(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }
	var stdout bytes.Buffer
	if err := WriteOutput("", &stdout, hello); err != nil || stdout.String() != "hello\n" {
		t.Errorf("stdout: %q, %v", stdout.String(), err)
	}
	path := filepath.Join(t.TempDir(), "out.txt")
	stdout.Reset()
	if err := WriteOutput(path, &stdout, hello); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "hello\n" || stdout.Len() != 0 {
		t.Errorf("-o FILE: file %q, stdout %q", b, stdout.String())
	}
	boom := errors.New("boom")
	if err := WriteOutput(path, &stdout, func(io.Writer) error { return boom }); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "write output") {
		t.Errorf("a failed write: %v", err)
	}
	if err := WriteOutput(filepath.Join(t.TempDir(), "no", "dir"), &stdout, hello); err == nil || !strings.HasPrefix(err.Error(), "output:") {
		t.Errorf("a folder that is not there: %v", err)
	}
}
