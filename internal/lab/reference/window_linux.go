package reference

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/objbench/objbench/internal/lab/netem"
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

// kernelCounts are TCP_INFO's counters of the kernel socket c (false
// where c is none): tcpi_segs_out, tcpi_total_retrans and tcpi_total_rto
// (Linux 6.7 and later; 0 before).
func kernelCounts(c net.Conn) (netem.Counts, bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return netem.Counts{}, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return netem.Counts{}, false
	}
	var n netem.Counts
	_ = raw.Control(func(fd uintptr) {
		if ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			n = netem.Counts{SegmentsOut: int64(ti.Segs_out), Retransmits: int64(ti.Total_retrans), Timeouts: int64(ti.Total_rto)}
			ok = true
		} else {
			ok = false
		}
	})
	return n, ok
}
