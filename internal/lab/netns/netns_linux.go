// Package netns makes network namespaces of their own and TUN devices in
// them, so that a program's (or a test's) kernel TCP can cross the lab's
// user-space wire (netem.Pipe). The namespaces are anonymous: the kernel
// removes one, with its devices, when its last handle closes or its last
// process exits, so nothing is left behind even when objbench is killed.
// It needs CAP_SYS_ADMIN and CAP_NET_ADMIN (root, or a user namespace of
// objbench's own: Relaunch) and /dev/net/tun.
package netns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// NS is a network namespace held open by a handle.
type NS struct {
	f *os.File
}

var (
	availOnce sync.Once
	availErr  error
)

// Available says whether namespaces with TUN devices can be made here: nil,
// or why not (checked once by making one).
func Available() error {
	availOnce.Do(func() {
		ns, err := New()
		if err != nil {
			availErr = err
			return
		}
		defer ns.Close()
		tun, err := ns.TUN("probe0", net.IPv4(10, 77, 9, 1), 24, 1500)
		if err != nil {
			availErr = err
			return
		}
		tun.Close()
	})
	return availErr
}

// onThread runs fn on an OS thread of its own, locked, and returns the
// thread to the runtime only once it is back in the namespace it started
// in (else the thread ends with the goroutine).
func onThread(fn func(home *os.File) error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("netns: %w", err)
			return
		}
		defer home.Close()
		err = fn(home)
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// New makes a network namespace with its loopback up.
func New() (*NS, error) {
	var ns *NS
	err := onThread(func(*os.File) error {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("netns: new network namespace: %w", err)
		}
		f, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			return fmt.Errorf("netns: %w", err)
		}
		if err := ifUp("lo", 0); err != nil {
			f.Close()
			return err
		}
		ns = &NS{f: f}
		return nil
	})
	return ns, err
}

// Do runs fn inside the namespace, on a locked OS thread: sockets fn makes
// belong to the namespace, and so does a process it starts (exec.Cmd.Start
// forks from the calling thread).
func (n *NS) Do(fn func() error) error {
	return onThread(func(*os.File) error {
		if err := unix.Setns(int(n.f.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("netns: enter: %w", err)
		}
		return fn()
	})
}

// Listen listens inside the namespace.
func (n *NS) Listen(network, addr string) (ln net.Listener, err error) {
	err = n.Do(func() error {
		ln, err = net.Listen(network, addr)
		return err
	})
	return ln, err
}

// ListenPacket listens for datagrams inside the namespace.
func (n *NS) ListenPacket(network, addr string) (pc net.PacketConn, err error) {
	err = n.Do(func() error {
		pc, err = net.ListenPacket(network, addr)
		return err
	})
	return pc, err
}

// TUN makes a TUN device in the namespace with addr/prefix and mtu, up.
// Reads and writes are whole IPv4 or IPv6 packets; closing the file
// removes the device.
func (n *NS) TUN(name string, addr net.IP, prefix, mtu int) (*os.File, error) {
	var f *os.File
	err := n.Do(func() error {
		fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return fmt.Errorf("netns: open /dev/net/tun: %w", err)
		}
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			unix.Close(fd)
			return fmt.Errorf("netns: TUN %s: %w", name, err)
		}
		ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
		if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
			unix.Close(fd)
			return fmt.Errorf("netns: TUN %s: %w", name, err)
		}
		f = os.NewFile(uintptr(fd), "/dev/net/tun:"+name)
		if err := setAddr(name, addr, prefix); err != nil {
			f.Close()
			return err
		}
		if err := ifUp(name, mtu); err != nil {
			f.Close()
			return err
		}
		return nil
	})
	return f, err
}

// AddLoopback gives the namespace's loopback one more address (addr/32),
// e.g. the host's name server's, so a server in the namespace can answer
// there.
func (n *NS) AddLoopback(label string, addr net.IP) error {
	return n.Do(func() error { return setAddr(label, addr, 32) })
}

// Sysctl writes a per-namespace setting, e.g. "net/ipv4/tcp_congestion_control".
func (n *NS) Sysctl(name, value string) error {
	return n.Do(func() error {
		if err := os.WriteFile("/proc/sys/"+name, []byte(value), 0o644); err != nil {
			return fmt.Errorf("netns: sysctl %s: %w", name, err)
		}
		return nil
	})
}

// Cubic is a net.ListenConfig or net.Dialer Control that selects CUBIC on
// the socket: the host's default may be BBR, which namespaces inherit (and
// a namespace may not change for itself), where the lab's stacks and most
// servers run CUBIC.
func Cubic(_, _ string, rc syscall.RawConn) error {
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, "cubic")
	}); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("TCP_CONGESTION cubic: %w", serr)
	}
	return nil
}

// Close drops the handle; the kernel removes the namespace once no process
// is left in it.
func (n *NS) Close() error { return n.f.Close() }

func ioctlSocket(fn func(fd int) error) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("netns: socket: %w", err)
	}
	defer unix.Close(fd)
	return fn(fd)
}

func setAddr(name string, addr net.IP, prefix int) error {
	a4 := addr.To4()
	if a4 == nil {
		return errors.New("netns: IPv4 addresses only")
	}
	return ioctlSocket(func(fd int) error {
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			return err
		}
		if err := ifr.SetInet4Addr(a4); err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFADDR, ifr); err != nil {
			return fmt.Errorf("netns: address of %s: %w", name, err)
		}
		mask, _ := unix.NewIfreq(name)
		_ = mask.SetInet4Addr(net.CIDRMask(prefix, 32))
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFNETMASK, mask); err != nil {
			return fmt.Errorf("netns: netmask of %s: %w", name, err)
		}
		return nil
	})
}

// txQueue is a TUN device's transmit queue in packets: far above any
// window, so that the kernel's qdisc never drops what the wire would have
// queued (at the default 500 a warm connection's bursts were dropped there,
// and Linux's reference GETs took three times as long).
const txQueue = 100000

func ifUp(name string, mtu int) error {
	return ioctlSocket(func(fd int) error {
		if name != "lo" {
			ifr, err := unix.NewIfreq(name)
			if err != nil {
				return err
			}
			ifr.SetUint32(txQueue)
			if err := unix.IoctlIfreq(fd, unix.SIOCSIFTXQLEN, ifr); err != nil {
				// The ioctl wants the capability in the first user
				// namespace; rtnetlink's in the device's (rootless).
				if !errors.Is(err, unix.EPERM) {
					return fmt.Errorf("netns: transmit queue of %s: %w", name, err)
				}
				if err := setTxQueue(fd, name, txQueue); err != nil {
					return fmt.Errorf("netns: transmit queue of %s: %w", name, err)
				}
			}
		}
		if mtu > 0 {
			ifr, err := unix.NewIfreq(name)
			if err != nil {
				return err
			}
			ifr.SetUint32(uint32(mtu))
			if err := unix.IoctlIfreq(fd, unix.SIOCSIFMTU, ifr); err != nil {
				return fmt.Errorf("netns: MTU of %s: %w", name, err)
			}
		}
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
			return fmt.Errorf("netns: flags of %s: %w", name, err)
		}
		ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
			return fmt.Errorf("netns: bring %s up: %w", name, err)
		}
		return nil
	})
}

// setTxQueue sets the transmit queue of the device name by rtnetlink
// (fd is a socket in its namespace, for its index).
func setTxQueue(fd int, name string, qlen uint32) error {
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
		return err
	}
	nl, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(nl)
	const hdr, info, attr = unix.SizeofNlMsghdr, unix.SizeofIfInfomsg, unix.SizeofRtAttr + 4
	msg := make([]byte, hdr+info+attr)
	ne := binary.NativeEndian
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.RTM_NEWLINK)
	ne.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK)
	ne.PutUint32(msg[8:], 1)                        // sequence
	ne.PutUint32(msg[hdr+4:], uint32(ifr.Uint32())) // ifi_index
	ne.PutUint16(msg[hdr+info:], attr)
	ne.PutUint16(msg[hdr+info+2:], unix.IFLA_TXQLEN)
	ne.PutUint32(msg[hdr+info+4:], qlen)
	if err := unix.Sendto(nl, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(nl, buf, 0)
	if err != nil {
		return err
	}
	if n < hdr+4 || ne.Uint16(buf[4:]) != unix.NLMSG_ERROR {
		return errors.New("rtnetlink: no acknowledgement")
	}
	if code := int32(ne.Uint32(buf[hdr:])); code != 0 {
		return unix.Errno(-code)
	}
	return nil
}
