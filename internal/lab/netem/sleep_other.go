//go:build !linux

package netem

import "time"

// preciseTimer exists on Linux only (timerfd); elsewhere the lab's
// delays are Go's own timers.
type preciseTimer struct{}

func newPreciseTimer() *preciseTimer { return nil }

func (*preciseTimer) wait(time.Duration) bool { return false }
func (*preciseTimer) arm(time.Duration) bool  { return false }
func (*preciseTimer) block() bool             { return false }
func (*preciseTimer) interrupt()              {}
func (*preciseTimer) close()                  {}
