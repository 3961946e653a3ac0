//go:build !linux

package realpath

import (
	"context"
	"net"
	"os/exec"
)

// Path is a running path (none here: namespaces are Linux's).
type Path struct{}

// Start fails: no namespaces here.
func Start(Config) (*Path, error) { return nil, ErrUnavailable }

// Mode, Note, Env, Run, Dial, Do, Stats and Close are never reached.
func (p *Path) Mode() string                                           { return "" }
func (p *Path) Note() string                                           { return "" }
func (p *Path) Env() []string                                          { return nil }
func (p *Path) Run(*exec.Cmd) error                                    { return ErrUnavailable }
func (p *Path) Dial(context.Context, string, string) (net.Conn, error) { return nil, ErrUnavailable }
func (p *Path) Do(func() error) error                                  { return ErrUnavailable }
func (p *Path) Stats() Stats                                           { return Stats{} }
func (p *Path) Close() error                                           { return nil }
