//go:build !linux

package reference

import (
	"net"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
)

// rwndLimited needs Linux's TCP_INFO; elsewhere there is no kernel path.
func rwndLimited(net.Conn) time.Duration { return 0 }

// kernelCounts needs Linux's TCP_INFO.
func kernelCounts(net.Conn) (netem.Counts, bool) { return netem.Counts{}, false }
