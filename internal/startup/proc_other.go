//go:build !unix

package startup

import "os/exec"

// ownGroup leaves the default: the context's cancellation kills the child.
func ownGroup(*exec.Cmd) {}
