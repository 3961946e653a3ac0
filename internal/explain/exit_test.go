package explain

import (
	"errors"
	"fmt"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
)

func TestExplainFailed(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		ok     bool
	}{
		{"not found", fmt.Errorf("%q: %w", "nope", lab.ErrCommandNotFound), ExitNotFound, true},
		{"no request, exit 0", &NoRequestsError{Msg: "m"}, ExitNothingExplained, true},
		{"no request, program failed", &NoRequestsError{Msg: "m", ExitCode: 5}, 5, true},
		{"no request, timed out", &NoRequestsError{Msg: "m", ExitCode: 5, TimedOut: true}, ExitTimeout, true},
		{"other", errors.New("lab did not start"), 0, false},
		{"none", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, status, ok := Failed(tt.err)
			if status != tt.status || ok != tt.ok {
				t.Errorf("Failed = %d, %v; want %d, %v", status, ok, tt.status, tt.ok)
			}
		})
	}
}

func TestExplainEnded(t *testing.T) {
	own := errors.New("save failed")
	tests := []struct {
		name    string
		exit    int
		runErr  error
		status  int
		err     error
		message bool
	}{
		{"success", 0, nil, 0, nil, false},
		{"program failed", 3, nil, 3, nil, true},
		{"timed out", 0, fmt.Errorf("after 1s: %w", ErrTimeout), ExitTimeout, nil, true},
		{"explain's own error", 0, own, 0, own, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &document.ExplainDocument{}
			d.Explain.ExitCode = tt.exit
			msg, status, err := Ended(d, []string{"/usr/bin/prog"}, tt.runErr)
			if status != tt.status || !errors.Is(err, tt.err) || (msg != "") != tt.message {
				t.Errorf("Ended = %q, %d, %v; want status %d, error %v, message %v", msg, status, err, tt.status, tt.err, tt.message)
			}
		})
	}
}
