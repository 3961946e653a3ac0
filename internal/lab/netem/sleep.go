package netem

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends (its error then). Every delay of the lab
// (a packet's time on the wire, a server's service time) is timed by it.
// Where the kernel has timerfd it is timed by one, as Go's own timers
// fire up to a millisecond late (docs/design.md#timers).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := newPreciseTimer()
	if t == nil {
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-tm.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer t.close()
	stop := context.AfterFunc(ctx, t.interrupt)
	defer stop()
	if !t.wait(d) {
		return ctx.Err()
	}
	return nil
}
