//go:build unix

package startup

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the child in its own process group and makes the
// context's cancellation kill the whole group, so a timed-out child's own
// children die with it, and a terminal's Ctrl-C reaches objbench only.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
