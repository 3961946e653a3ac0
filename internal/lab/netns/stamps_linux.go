package netns

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Stamps says when the kernel sent each packet a TUN device's reader gets:
// a packet socket on the device sees every outgoing packet as the kernel
// hands it to the device (dev_queue_xmit_nit, before the device's own
// queue), with the time then. The wire's reader gets the same packet from
// the device 40 to 160 µs later on a busy two-core machine, and more in
// clumps: admitted then, the kernel's even pacing reached the bottleneck as
// bursts the kernel never sent (docs/lab.md, "The reference admits each
// packet when its kernel sent it").
//
// Both see the device's packets in the same order, and the socket's copy is
// queued before the device's, so SentAgo reads the socket without waiting.
type Stamps struct {
	// f holds the socket; its RawConn keeps the descriptor from being
	// closed (and its number reused) while a read is under way.
	f       *os.File
	rc      syscall.RawConn
	recv    func(fd uintptr) bool // s.recvmsg, made once
	got     stamp
	gotOK   bool
	buf     []byte // a packet's first bytes: enough to tell it apart
	oob     []byte
	iov     unix.Iovec
	msg     unix.Msghdr
	pending []stamp // read, not yet matched: packets the device dropped, or ahead of a lost record
}

type stamp struct {
	key uint64
	at  int64 // CLOCK_REALTIME, ns
}

// stampBytes is how much of a packet tells it apart: the IP and TCP
// headers with their options (IP ID, checksum, sequence, timestamps).
const stampBytes = 128

// maxPending bounds the records kept unmatched.
const maxPending = 4096

// SendStamps opens the packet socket on the device name in the namespace.
func (n *NS) SendStamps(name string) (*Stamps, error) {
	var s *Stamps
	err := n.Do(func() error {
		var err error
		s, err = sendStamps(name)
		return err
	})
	return s, err
}

func sendStamps(name string) (*Stamps, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return nil, fmt.Errorf("netns: stamps on %s: %w", name, err)
	}
	// Protocol 0 receives nothing until bound: the filter is in place
	// before the first packet.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("netns: stamps on %s: packet socket: %w", name, err)
	}
	fail := func(what string, err error) (*Stamps, error) {
		unix.Close(fd)
		return nil, fmt.Errorf("netns: stamps on %s: %s: %w", name, what, err)
	}
	// Outgoing packets only: the ones the wire writes to the device
	// pass the socket too.
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: skfAdOff + skfAdPkttype},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.PACKET_OUTGOING, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: stampBytes},
		{Code: unix.BPF_RET | unix.BPF_K, K: 0},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog); err != nil {
		return fail("filter", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fail("timestamps", err)
	}
	// Room for a window's records while the reader is away: FORCE needs
	// the capability in the first user namespace (not rootless), where
	// net.core.rmem_max caps the plain one.
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 8<<20)
	}
	sa := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	f := os.NewFile(uintptr(fd), "packet:"+name)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("netns: stamps on %s: %w", name, err)
	}
	s := &Stamps{f: f, rc: rc, buf: make([]byte, stampBytes), oob: make([]byte, unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{}))))}
	s.recv = s.recvmsg
	s.iov.Base = &s.buf[0]
	s.iov.SetLen(len(s.buf))
	s.msg.Iov = &s.iov
	s.msg.SetIovlen(1)
	s.msg.Control = &s.oob[0]
	return s, nil
}

// The classic BPF load of a packet's type (linux/filter.h: SKF_AD_OFF +
// SKF_AD_PKTTYPE).
const skfAdOff, skfAdPkttype = 1<<32 - 0x1000, 4

// htons is v in network order, as the socket address wants it.
func htons(v uint16) uint16 { return binary.NativeEndian.Uint16(binary.BigEndian.AppendUint16(nil, v)) }

// keyOf is FNV-1a of pkt's first stampBytes (its IP header has its
// length; the socket's filter keeps no more of it).
func keyOf(pkt []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range pkt[:min(len(pkt), stampBytes)] {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}

// SentAgo says how long ago the kernel sent pkt, just read from the
// device; false where its record is missing (the socket's buffer was
// full).
func (s *Stamps) SentAgo(pkt []byte) (time.Duration, bool) {
	key := keyOf(pkt)
	for i, p := range s.pending {
		if p.key == key {
			// Those before it were the device's drops.
			s.pending = s.pending[:copy(s.pending, s.pending[i+1:])]
			return ago(p.at)
		}
	}
	for {
		p, ok := s.read()
		if !ok {
			return 0, false
		}
		if p.key == key {
			return ago(p.at)
		}
		if len(s.pending) == maxPending {
			s.pending = s.pending[:copy(s.pending, s.pending[1:])]
		}
		s.pending = append(s.pending, p)
	}
}

// read takes the next record, without waiting.
func (s *Stamps) read() (stamp, bool) {
	s.gotOK = false
	if s.rc.Read(s.recv) != nil {
		return stamp{}, false
	}
	return s.got, s.gotOK
}

// recvmsg is one try at the next record, for RawConn.Read: it never
// waits for one to come.
func (s *Stamps) recvmsg(fd uintptr) bool {
	for {
		s.msg.SetControllen(len(s.oob))
		n, _, errno := unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.msg)), 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return true
		}
		var at int64
		if hdr := (*unix.Cmsghdr)(unsafe.Pointer(&s.oob[0])); uint64(s.msg.Controllen) >= uint64(unix.CmsgLen(0)) &&
			hdr.Level == unix.SOL_SOCKET && hdr.Type == unix.SCM_TIMESTAMPNS {
			ts := (*unix.Timespec)(unsafe.Pointer(&s.oob[unix.CmsgLen(0)]))
			at = ts.Nano()
		}
		s.got, s.gotOK = stamp{key: keyOf(s.buf[:min(int(n), len(s.buf))]), at: at}, true
		return true
	}
}

// ago turns a record's time into its age, false where the clock moved
// (a step of the wall clock, or no time).
func ago(at int64) (time.Duration, bool) {
	d := time.Duration(time.Now().UnixNano() - at)
	if at == 0 || d < 0 || d > time.Second {
		return 0, false
	}
	return d, true
}

// Close closes the socket, once no read is under way.
func (s *Stamps) Close() error { return s.f.Close() }
