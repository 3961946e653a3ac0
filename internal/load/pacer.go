package load

import (
	"context"
	"time"
)

// Pacer decides when each operation of a step starts. The runner asks it
// before every operation, from the worker that will run it.
//
// Closed loop (ClosedLoop, the default) starts an operation as soon as a
// worker is free, so a slow service slows the offered load down with it.
// An open-loop pacer (a fixed or ramped --rate, uniform or Poisson
// arrivals) instead schedules operation i at a time of its own, and
// latency is measured from that intended start rather than from when a
// worker got to it, free of coordinated omission.
type Pacer interface {
	// Wait blocks until operation i (0-based across the step's workers)
	// may start and returns the time it was intended to start, or the zero
	// time when it has none (closed loop: it starts now). An error (ctx
	// done) ends the worker.
	Wait(ctx context.Context, i int) (intended time.Time, err error)
}

// ClosedLoop starts every operation as soon as a worker is free.
type ClosedLoop struct{}

// Wait returns at once: no intended start.
func (ClosedLoop) Wait(ctx context.Context, _ int) (time.Time, error) { return time.Time{}, ctx.Err() }
