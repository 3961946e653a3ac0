package reference

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// rwndLimited is how long the kernel's sender on c was held by its peer's
// receive window (TCP_INFO's tcpi_rwnd_limited); 0 where c is not a
// kernel socket (the lab's stacks).
func rwndLimited(c net.Conn) time.Duration {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	var us uint64
	_ = raw.Control(func(fd uintptr) {
		if ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			us = ti.Rwnd_limited
		}
	})
	return time.Duration(us) * time.Microsecond
}
