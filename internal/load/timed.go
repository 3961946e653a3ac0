package load

import (
	"context"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
)

// Timed runs op once and returns what nettrace recorded of it: the one
// place an operation is timed (the runner's workers, the probe, the
// idle-timeout search, the lab check). A positive timeout bounds op,
// connecting included. The sample is finished after op returns, so op
// must read any response body to its end first.
func Timed(ctx context.Context, timeout time.Duration, op func(context.Context) error) (nettrace.Sample, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ctx, rec := nettrace.Begin(ctx)
	err := op(ctx)
	return rec.Finish(), err
}
