package results

import (
	"os"
	"path/filepath"
)

// LambdaPath is the results database of objbench on AWS Lambda, where
// only the temporary folder is writable: path when one is given, ""
// (DefaultPath) when $XDG_DATA_HOME is set, else results.db under the
// temporary folder.
func LambdaPath(path string) string {
	if path == "" && os.Getenv("XDG_DATA_HOME") == "" {
		return filepath.Join(os.TempDir(), "objbench", "results.db")
	}
	return path
}
