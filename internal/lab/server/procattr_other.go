//go:build !linux && unix

package server

import "syscall"

// childAttr puts a helper process in a group of its own; only Linux can
// also have it ended when the lab dies (Pdeathsig).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
