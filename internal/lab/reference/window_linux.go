package reference

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/objbench/objbench/internal/lab/netem"
)

// tcpInfo is TCP_INFO of the kernel socket c (false where c is none,
// e.g. the lab's stacks).
func tcpInfo(c net.Conn) (*unix.TCPInfo, bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	var ti *unix.TCPInfo
	_ = raw.Control(func(fd uintptr) {
		ti, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	})
	return ti, err == nil && ti != nil
}

// rwndLimited is how long the kernel's sender on c was held by its peer's
// receive window (TCP_INFO's tcpi_rwnd_limited); 0 where c is not a
// kernel socket (the lab's stacks).
func rwndLimited(c net.Conn) time.Duration {
	ti, ok := tcpInfo(c)
	if !ok {
		return 0
	}
	return time.Duration(ti.Rwnd_limited) * time.Microsecond
}

// kernelCounts are TCP_INFO's counters of the kernel socket c (false
// where c is none): tcpi_segs_out, tcpi_total_retrans and tcpi_total_rto
// (Linux 6.7 and later; 0 before).
func kernelCounts(c net.Conn) (netem.Counts, bool) {
	ti, ok := tcpInfo(c)
	if !ok {
		return netem.Counts{}, false
	}
	return netem.Counts{SegmentsOut: int64(ti.Segs_out), Retransmits: int64(ti.Total_retrans), Timeouts: int64(ti.Total_rto)}, true
}
