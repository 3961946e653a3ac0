// Package realpath is the program's real path for `objbench explain
// --real`: the program runs in a network namespace of its own whose only
// route is a TUN device objbench reads. Every packet is stamped there (the
// capture point), crosses the emulated wire when an impairment is asked
// for, and is carried on without being terminated, re-originated or
// answered: the program's own kernel TCP and TLS go end to end. The host's
// loopback is mapped into the namespace at HostAddr (as pasta's
// --map-host-loopback), by translating the packets' addresses onto a
// second TUN device in objbench's own namespace; name lookups are answered
// by objbench from this machine's resolver, on the same captured path.
package realpath

import (
	"errors"
	"net/netip"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
)

// Modes say what carried a run's packets beyond the capture point.
const (
	// ModeKernel: the program's packets reach the server's kernel
	// unchanged but for their addresses; its TCP and TLS are end to end.
	ModeKernel = "kernel"
	// ModeTranslator: a user-space TCP/IP stack at the namespace's edge
	// ends each TCP connection there and opens objbench's own beyond (as
	// slirp4netns and pasta do); the program's TCP is measured up to the
	// edge.
	ModeTranslator = "translator"
	// ModeProxy: no namespace; an HTTPS_PROXY CONNECT tunnel carried the
	// program's connections (the fallback).
	ModeProxy = "proxy"
)

// Addresses on the program's side: the program's own, and the host's
// loopback as the program reaches it (OBJBENCH_HOST).
var (
	ProgramAddr = netip.AddrFrom4([4]byte(netem.ClientAddr))
	HostAddr    = netip.AddrFrom4([4]byte(netem.ServerAddr))
)

// HostEnv is the variable that tells the program where this machine's
// loopback is.
const HostEnv = "OBJBENCH_HOST"

// Config is one path.
type Config struct {
	// Wire is the impairment added on top of the real path (--rtt,
	// --bandwidth, --loss): the zero value adds none.
	Wire netem.Config
	// Capture is told every IP packet at the program's device, both ways,
	// when it left the program or was handed to it. It is called from
	// more than one goroutine, never at once; data is valid only during
	// the call.
	Capture func(t time.Time, data []byte)
	// HostsFile answers names before the resolver ("" for /etc/hosts).
	HostsFile string
	// ResolvConf names the program's name servers ("" for
	// /etc/resolv.conf): those on loopback are answered in its namespace.
	ResolvConf string
	// Translator carries every connection through the user-space
	// translator, as a rootless objbench must.
	Translator bool
}

// ErrUnavailable says namespaces cannot be made here (see the fallback).
var ErrUnavailable = errors.New("network namespaces unavailable")

// Stats count what the path did besides carrying packets.
type Stats struct {
	// Lookups answered; Unreachable packets to destinations the path
	// could not carry (answered with ICMP unreachable).
	Lookups, Unreachable int64
	// Translated connections went through the translator; Refused were
	// refused beyond it, the last for LastRefusal (the dial's error).
	Translated, Refused int64
	LastRefusal         string
}
