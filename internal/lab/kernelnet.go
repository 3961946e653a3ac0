package lab

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/netns"
)

// Network paths a program run by Exec can take (Config.Network).
const (
	// NetworkAuto is NetworkNetns where namespaces work, else NetworkNetstack;
	// for objbench's own client alone (Config.OwnClient), NetworkNetns only
	// behind a bandwidth cap, with loss (random or bursty) or reordering.
	NetworkAuto = "auto"
	// NetworkNetns runs the program in a network namespace of its own
	// whose only route is a TUN device on the wire; the servers answer
	// from a second namespace, so the kernel's TCP is at both ends.
	NetworkNetns = "netns"
	// NetworkNetstack gives the program local endpoints on 127.0.0.1 and
	// carries its bytes across the wire between the user-space stacks.
	NetworkNetstack = "netstack"
)

// NetworkHelp is the --network flag's help.
const NetworkHelp = "the program's network path: netns runs it in a network namespace of its own whose only route is the emulated wire " +
	"(its own TCP: connect, Nagle, delayed ACKs, buffers; needs Linux, and root or user namespaces), netstack gives it local endpoints on 127.0.0.1 " +
	"forwarded across the wire (works anywhere, hides its own TCP), auto picks netns where it works"

// namespacesAvailable is netns.Available (a test stands in for a machine without namespaces).
var namespacesAvailable = netns.Available

// euid and canRelaunch are os.Geteuid and netns.CanRelaunch (a test
// stands in for an unprivileged user with or without user namespaces).
var (
	euid        = os.Geteuid
	canRelaunch = netns.CanRelaunch
)

// ErrRelaunch says the lab's netns path needs objbench to run in a user
// namespace of its own: the command starts it again there (Relaunch) and
// passes on its exit status.
var ErrRelaunch = netns.ErrRelaunch

// Relaunch runs objbench again with args in a user namespace of its own
// (see netns.Relaunch), for a lab that returned ErrRelaunch.
func Relaunch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return netns.Relaunch(ctx, args, stdin, stdout, stderr)
}

// kernelNet is the netns path: the program's namespace and the servers'
// joined by the lab's wire, with resolvers for the program.
type kernelNet struct {
	pair *netns.Pair
	dns  []*dnsServer
}

// The address of the lab's servers on the netns path.
var serverAddr = netem.ServerAddr

// chooseNetwork resolves cfg.Network: the path, and when auto had to fall
// back, the notice that says so and what the fallback cannot show.
func (l *Lab) chooseNetwork() (string, string, error) {
	mode := l.cfg.Network
	switch mode {
	case "", NetworkNetstack:
		return NetworkNetstack, "", nil
	case NetworkAuto, NetworkNetns:
	default:
		return "", "", fmt.Errorf("lab network %q: use auto, netns or netstack", mode)
	}
	if l.net == nil {
		return NetworkNetstack, "", nil // nothing emulated: loopback is the path
	}
	// objbench's own client alone meets Linux's TCP on the user-space
	// stacks, and costs less there, except behind a bottleneck, with loss
	// (random or bursty) or reordering (bench/grid.sh); duplication alone
	// it meets.
	differs := l.link.Bandwidth > 0 || l.link.Loss > 0 || l.link.Bursty.On() || l.link.Reorder.Share > 0
	if mode == NetworkAuto && l.cfg.OwnClient && !differs {
		return NetworkNetstack, "", nil
	}
	err := namespacesAvailable()
	if err == nil {
		return NetworkNetns, "", nil
	}
	if euid() != 0 && !netns.Rootless() {
		// Not root: a user namespace of its own gives objbench the
		// namespaces, as rootless containers have them, where the
		// kernel allows it; else its reason is the one to show.
		rerr := canRelaunch()
		if rerr == nil {
			return "", "", ErrRelaunch
		}
		err = rerr
	}
	if mode == NetworkNetns {
		return "", "", fmt.Errorf("lab network netns: %w (it needs Linux, root or user namespaces, and /dev/net/tun; --network netstack works anywhere)", err)
	}
	if l.cfg.OwnClient {
		return NetworkNetstack, fmt.Sprintf("network namespaces unavailable (%v): objbench's own TCP is the lab's user-space stacks, "+
			"which behind a bottleneck, with loss or with reordering take longer than Linux's TCP over the same wire (docs/lab.md)", err), nil
	}
	return NetworkNetstack, fmt.Sprintf("network namespaces unavailable (%v): the program reaches the lab through local endpoints, "+
		"so its own TCP (connect, Nagle, delayed ACKs, buffers) is not on the emulated wire", err), nil
}

// startKernelNet makes the namespaces and the wire, and answers the
// program's name lookups in its namespace: on the host's name servers'
// addresses (from /etc/resolv.conf), with the lab's resolver, whose names
// lead to the servers' namespace.
func (l *Lab) startKernelNet() (_ *kernelNet, err error) {
	cfg := l.netemConfig()
	pair, err := netns.NewPair(netem.Config{Up: cfg.Up, Down: cfg.Down, MTU: cfg.MTU, Precise: cfg.Exact, Exact: cfg.Exact})
	if err != nil {
		return nil, err
	}
	k := &kernelNet{pair: pair}
	defer func() {
		if err != nil {
			k.Close()
		}
	}()
	for i, ip := range nameServers("/etc/resolv.conf") {
		if !ip.IsLoopback() {
			if err := pair.Client.AddLoopback(fmt.Sprintf("lo:%d", i+1), ip); err != nil {
				return nil, err
			}
		}
		pc, err := pair.Client.ListenPacket("udp4", net.JoinHostPort(ip.String(), "53"))
		if err != nil {
			return nil, fmt.Errorf("lab resolver in the program's namespace: %w", err)
		}
		k.dns = append(k.dns, serveDNS(pc, l.cfg.DNSTime, l.cfg.DNSTTL, [4]byte(serverAddr.To4())))
	}
	return k, nil
}

// nameServers are the IPv4 name servers resolv.conf names; 127.0.0.1
// (the resolver's default) when it names none.
func nameServers(path string) []net.IP {
	var out []net.IP
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "nameserver" {
				if ip := net.ParseIP(fields[1]).To4(); ip != nil {
					out = append(out, ip)
				}
			}
		}
	}
	if len(out) == 0 {
		out = append(out, net.IPv4(127, 0, 0, 1).To4())
	}
	return out
}

// listen listens on the servers' side of the netns path; the servers run
// CUBIC, as the lab's stacks do, whatever the host's default.
func (k *kernelNet) listen(port int) (ln net.Listener, err error) {
	err = k.pair.Server.Do(func() error {
		lc := net.ListenConfig{Control: netns.Cubic}
		ln, err = lc.Listen(context.Background(), "tcp4", net.JoinHostPort(serverAddr.String(), fmt.Sprint(port)))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("lab network: listen in the servers' namespace: %w", err)
	}
	return ln, nil
}

// dial connects objbench's own client from the program's namespace to the
// servers' (the kernel's TCP at both ends), with CUBIC as the lab's stacks
// and the servers run: a run's figures do not depend on the host's default
// (BBR here, which took 38% less than CUBIC for a cold 1 MiB PUT behind an
// 8-packet queue at 16 Mbit). A program run by Exec keeps the host's.
func (k *kernelNet) dial(ctx context.Context, port int) (c net.Conn, err error) {
	err = k.pair.Client.Do(func() error {
		d := net.Dialer{Control: netns.Cubic}
		c, err = d.DialContext(ctx, "tcp4", net.JoinHostPort(serverAddr.String(), fmt.Sprint(port)))
		return err
	})
	return c, err
}

func (k *kernelNet) Close() {
	for _, d := range k.dns {
		d.Close()
	}
	_ = k.pair.Close()
}

// ProgramListen listens where the program run by Exec can reach: in its
// namespace on the netns path (where 127.0.0.1 is its own), else on the
// host.
func (l *Lab) ProgramListen(network, addr string) (net.Listener, error) {
	if l.kn != nil {
		return l.kn.pair.Client.Listen(network, addr)
	}
	return net.Listen(network, addr)
}

// ProgramEndpoint is api's URL as the program run by Exec reaches it: the
// servers' address on the netns path, else the local endpoint.
func (l *Lab) ProgramEndpoint(api string) string {
	ep := l.endpoints[api]
	if ep == nil {
		return ""
	}
	if ep.prog != "" {
		return ep.prog
	}
	return ep.local
}

// ProgramHosts are the hosts the program reaches the lab at (for NO_PROXY).
func (l *Lab) ProgramHosts() []string {
	if l.kn != nil {
		return []string{serverAddr.String()}
	}
	return nil
}

// Notice is a line to show the user about the lab's network ("" for
// none): that auto fell back to the netstack path, and what that hides.
func (l *Lab) Notice() string { return l.notice }

// Rootless says whether the netns path runs in a user namespace objbench
// made (it was started by a user other than root).
func (l *Lab) Rootless() bool { return l.kn != nil && netns.Rootless() }
