package server

import "syscall"

// childAttr puts a helper process (azurite-blob) in a group of its own, so
// stopping it stops its children, and has the kernel end it when the lab
// dies without stopping it (a kill leaves no server behind).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
