//go:build !linux

// Package netns makes network namespaces with TUN devices on Linux; on
// other systems there are none, and the lab keeps its portable path.
package netns

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

var errUnsupported = errors.New("network namespaces are Linux's")

// NS is a network namespace (none here).
type NS struct{}

// Available says why there are no namespaces here.
func Available() error { return errUnsupported }

// New fails: no namespaces here.
func New() (*NS, error) { return nil, errUnsupported }

// Do fails: no namespaces here.
func (n *NS) Do(func() error) error { return errUnsupported }

// Listen fails: no namespaces here.
func (n *NS) Listen(string, string) (net.Listener, error) { return nil, errUnsupported }

// ListenPacket fails: no namespaces here.
func (n *NS) ListenPacket(string, string) (net.PacketConn, error) { return nil, errUnsupported }

// TUN fails: no namespaces here.
func (n *NS) TUN(string, net.IP, int, int) (*os.File, error) { return nil, errUnsupported }

// AddLoopback fails: no namespaces here.
func (n *NS) AddLoopback(string, net.IP) error { return errUnsupported }

// Sysctl fails: no namespaces here.
func (n *NS) Sysctl(string, string) error { return errUnsupported }

// Cubic does nothing here.
func Cubic(string, string, syscall.RawConn) error { return nil }

// Close does nothing.
func (n *NS) Close() error { return nil }

// Rootless is false: no user namespaces here.
func Rootless() bool { return false }

// ErrRelaunch is never returned here.
var ErrRelaunch = errors.New("network namespaces need a user namespace: start objbench again in one")

// CanRelaunch fails: no user namespaces here.
func CanRelaunch() error { return errUnsupported }

// Relaunch fails: no user namespaces here.
func Relaunch(context.Context, []string, io.Reader, io.Writer, io.Writer) (int, error) {
	return 0, errUnsupported
}

// Start fails: no namespaces here.
func (n *NS) Start(*exec.Cmd) error { return errUnsupported }

// Stamps says when the kernel sent a device's packets (none here).
type Stamps struct{}

// SendStamps fails: no namespaces here.
func (n *NS) SendStamps(string) (*Stamps, error) { return nil, errUnsupported }

// SentAgo never knows here.
func (s *Stamps) SentAgo([]byte) (time.Duration, bool) { return 0, false }

// Close does nothing.
func (s *Stamps) Close() error { return nil }
