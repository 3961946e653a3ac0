package explain

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
)

// Exit statuses of explain beyond the program's own, documented in its
// help (ExitNotFound, the shell's, is lab exec's too).
const (
	// ExitNotFound is the shell's status for a command that is not found.
	ExitNotFound = 127
	// ExitNothingExplained: the program exited 0 but never reached the lab.
	ExitNothingExplained = 3
	// ExitTimeout: the program ran past --timeout (as timeout(1)).
	ExitTimeout = 124
)

// Failed maps an error of Execute that left nothing to
// explain to the line to print and the exit status; ok is false for any
// other error.
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

// Ended is how a run whose explanation was printed ends: a line to
// print ("" for none) and the exit status, the program's own unless
// explain stopped it; err is an error of explain's own.
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
