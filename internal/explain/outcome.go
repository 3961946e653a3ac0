package explain

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
)

// Exit statuses of explain beyond the program's own, documented in its help.
const (
	// ExitNothingExplained: the program exited 0 but never reached the lab.
	ExitNothingExplained = 3
	// ExitTimeout: the program ran past --timeout (as timeout(1)).
	ExitTimeout = 124
	// ExitNotFound: the command is not on PATH (the shell's status).
	ExitNotFound = 127
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

// Failed maps an error of Run that left nothing to explain to the line to
// print and the exit status; ok is false for any other error.
func Failed(err error) (msg string, status int, ok bool) {
	var nr *NoRequestsError
	switch {
	case errors.Is(err, lab.ErrCommandNotFound):
		return err.Error(), ExitNotFound, true
	case errors.As(err, &nr):
		switch {
		case nr.TimedOut:
			return nr.Msg, ExitTimeout, true
		case nr.ExitCode != 0:
			return nr.Msg, nr.ExitCode, true
		}
		return nr.Msg, ExitNothingExplained, true
	}
	return "", 0, false
}

// Ended is how a run whose explanation was printed ends: a line to print
// ("" for none) and the exit status, the program's own unless explain
// stopped it; err is an error of explain's own.
func Ended(d *document.ExplainDocument, argv []string, runErr error) (msg string, status int, err error) {
	switch {
	case errors.Is(runErr, ErrTimeout):
		return runErr.Error(), ExitTimeout, nil
	case runErr != nil:
		return "", 0, runErr
	case d.Explain.ExitCode != 0:
		return fmt.Sprintf("%s exited with status %d", filepath.Base(argv[0]), d.Explain.ExitCode), d.Explain.ExitCode, nil
	}
	return "", 0, nil
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
