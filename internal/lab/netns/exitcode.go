package netns

import (
	"errors"
	"os/exec"
	"syscall"
)

// ExitCode is the status a shell would give for cmd.Wait's err: the
// child's own exit code, or 128 plus the signal that ended it. ok is false
// when err is not about the child's exit (it did not run, or Wait failed).
func ExitCode(err error) (code int, ok bool) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, true
	case errors.As(err, &ee):
		if ws, isWS := ee.Sys().(syscall.WaitStatus); isWS && ws.Signaled() {
			return 128 + int(ws.Signal()), true
		}
		return ee.ExitCode(), true
	}
	return 0, false
}
