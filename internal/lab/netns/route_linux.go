package netns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Current is a handle on the namespace the calling process runs in (its
// first thread's), so that a device can be made there as in one of New's.
// Closing it does not remove the namespace.
func Current() (*NS, error) {
	f, err := os.Open("/proc/self/ns/net")
	if err != nil {
		return nil, fmt.Errorf("netns: %w", err)
	}
	return &NS{f: f}, nil
}

// DefaultRoute routes everything the namespace sends beyond its own
// networks out of dev (a TUN device: no gateway, no neighbours to find).
func (n *NS) DefaultRoute(dev string) error {
	return n.Do(func() error { return addRoute(dev) })
}

// addRoute adds 0.0.0.0/0 dev name (scope link) to the main table by
// rtnetlink, in the calling thread's namespace.
func addRoute(name string) error {
	var index int32
	if err := ioctlSocket(func(fd int) error {
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
			return err
		}
		index = int32(ifr.Uint32())
		return nil
	}); err != nil {
		return fmt.Errorf("netns: index of %s: %w", name, err)
	}
	nl, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("netns: netlink: %w", err)
	}
	defer unix.Close(nl)
	const hdr, rtm, attr = unix.SizeofNlMsghdr, unix.SizeofRtMsg, unix.SizeofRtAttr + 4
	msg := make([]byte, hdr+rtm+attr)
	ne := binary.NativeEndian
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.RTM_NEWROUTE)
	ne.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	ne.PutUint32(msg[8:], 1)
	r := msg[hdr:]
	r[0] = unix.AF_INET // family; dst_len, src_len, tos 0
	r[4] = unix.RT_TABLE_MAIN
	r[5] = unix.RTPROT_BOOT
	r[6] = unix.RT_SCOPE_LINK
	r[7] = unix.RTN_UNICAST
	a := msg[hdr+rtm:]
	ne.PutUint16(a[0:], attr)
	ne.PutUint16(a[2:], unix.RTA_OIF)
	ne.PutUint32(a[4:], uint32(index))
	if err := unix.Sendto(nl, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("netns: default route: %w", err)
	}
	buf := make([]byte, 4096)
	nr, _, err := unix.Recvfrom(nl, buf, 0)
	if err != nil {
		return fmt.Errorf("netns: default route: %w", err)
	}
	if nr < hdr+4 || ne.Uint16(buf[4:]) != unix.NLMSG_ERROR {
		return errors.New("netns: default route: no acknowledgement")
	}
	if code := int32(ne.Uint32(buf[hdr:])); code != 0 {
		return fmt.Errorf("netns: default route: %w", unix.Errno(-code))
	}
	return nil
}
