package report

import (
	"fmt"
	"os"
	"path/filepath"
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
