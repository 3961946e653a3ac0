//go:build unix && !linux

package results

import (
	"errors"
	"syscall"
)

// canCheckProcesses: signal 0 says whether a process exists.
const canCheckProcesses = true

// processStamp is "": the start time is not read here.
func processStamp(int) string { return "" }

// processAlive asks the kernel whether pid exists (signal 0).
func processAlive(pid int) (string, bool) {
	err := syscall.Kill(pid, 0)
	return "", err == nil || errors.Is(err, syscall.EPERM)
}
