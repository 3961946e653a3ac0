//go:build !linux

package reference

import (
	"net"
	"time"
)

// rwndLimited needs Linux's TCP_INFO; elsewhere there is no kernel path.
func rwndLimited(net.Conn) time.Duration { return 0 }
