package explain

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/objbench/objbench/internal/analysis"
)

// Check refuses an endpoint the lab cannot serve and a negative
// --timeout (usage errors), and loads the price file (LoadPrices).
func Check(apis []string, timeout time.Duration, priceFile string) (analysis.Prices, error) {
	if timeout < 0 {
		return analysis.Prices{}, fmt.Errorf("--timeout %s must not be negative", timeout)
	}
	for _, a := range apis {
		if a != "s3" && a != "gcs" && a != "azure" {
			return analysis.Prices{}, fmt.Errorf("--apis %q: use s3, gcs or azure", a)
		}
	}
	return analysis.LoadPrices(priceFile)
}

// ProgramOutput is where the program's output goes: FILE, or w with each
// line prefixed by the command's base name, so that it never mixes with
// the explanation. close flushes or closes it.
func ProgramOutput(path, command string, w io.Writer) (out io.Writer, close func() error, err error) {
	if path == "" {
		pw := NewPrefixWriter(w, filepath.Base(command)+"| ")
		return pw, pw.Flush, nil
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--program-output: %w", err)
	}
	return fh, fh.Close, nil
}
