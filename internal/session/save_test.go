package session

import (
	"errors"
	"fmt"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// TestEnded: an interrupted run ends as the caller's interruption whatever
// else failed; else the run's error and crossed thresholds are both said.
func TestEnded(t *testing.T) {
	t.Parallel()
	errInterrupted, errRun, errThreshold := errors.New("interrupted"), errors.New("step failed"), errors.New("p99 above 10ms")
	for _, c := range []struct {
		name               string
		interrupted        bool
		runErr, thresholds error
		want               string // "" nil
	}{
		{name: "all passed"},
		{name: "interrupted, whatever failed", interrupted: true, runErr: errRun, thresholds: errThreshold, want: "interrupted"},
		{name: "failed and crossed", runErr: errRun, thresholds: errThreshold, want: "step failed\np99 above 10ms"},
		{name: "crossed", thresholds: errThreshold, want: "p99 above 10ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &document.Document{}
			d.Interrupted = c.interrupted
			err := Ended(d, errInterrupted, c.runErr, c.thresholds)
			if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && got != c.want {
				t.Errorf("Ended = %v, want %q", err, c.want)
			}
			if c.interrupted && !errors.Is(err, errInterrupted) {
				t.Errorf("Ended = %v, want the caller's interruption itself", err)
			}
		})
	}
}
