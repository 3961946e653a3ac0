package html

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
)

// WriteHTMLFile writes the page to path through a file next to path and renames it into place,
// so that an interrupted write never leaves half a report.
func WriteHTMLFile(path string, in HTMLInput) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".objbench-report-*.html")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := WriteHTML(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteAfterRun writes --report FILE for a run that just finished, from
// memory (so it works with --no-save too), and says so on stderr.
func WriteAfterRun(path string, sr *analysis.Run, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	if err := WriteHTMLFile(path, PageInput([]*analysis.Run{sr}, "")); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", path)
	return nil
}

// WriteProbesPage writes probe --report FILE: one page of the round on
// every target (nothing without a path or a round).
func WriteProbesPage(path string, docs []*document.Document) error {
	if path == "" || len(docs) == 0 {
		return nil
	}
	return WriteHTMLFile(path, PageInput(analysis.ProbeRuns(docs), ""))
}

// CheckPath fails before a run starts when --report cannot be written:
// its folder is not there.
func CheckPath(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("--report %s: folder %s does not exist", path, dir)
	}
	return nil
}
