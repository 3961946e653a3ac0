package shard

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/objbench/objbench/internal/storage"
)

// Clock is an estimate of this machine's clock minus the storage
// service's, and the bound of its error.
type Clock struct {
	Offset, Error time.Duration
}

// stamp is one probe: the local times around a write and the time the
// service stamped on the object.
type stamp struct {
	t0, t1 time.Time
	server time.Time
}

// estimate intersects the probes' bounds. The service stamped its time
// (truncated to res) somewhere in [t0, t1] on our clock, so
// offset = local - server lies in (t0 - server - res, t1 - server].
func estimate(ps []stamp) (Clock, bool) {
	if len(ps) == 0 {
		return Clock{}, false
	}
	res := time.Second // Last-Modified has seconds; listings often milliseconds
	for _, p := range ps {
		if p.server.Nanosecond() != 0 {
			res = time.Millisecond
		}
	}
	lo, hi := time.Duration(-1<<62), time.Duration(1<<62)
	for _, p := range ps {
		lo = max(lo, p.t0.Sub(p.server)-res)
		hi = min(hi, p.t1.Sub(p.server))
	}
	if lo > hi { // inconsistent stamps (a clock step): trust the last probe alone
		p := ps[len(ps)-1]
		lo, hi = p.t0.Sub(p.server)-res, p.t1.Sub(p.server)
	}
	return Clock{Offset: (lo + hi) / 2, Error: (hi - lo) / 2}, true
}

// MeasureClock writes a small object under key four times, reads the time
// the service stamped on it each time, and deletes it; the bounds of the
// probes intersect. A service that stamps whole seconds gets its probes
// spread over a second, so that they still narrow the estimate.
func MeasureClock(ctx context.Context, b storage.Backend, key string) (Clock, error) {
	const probes = 4
	var ps []stamp
	defer func() { _ = b.Delete(context.WithoutCancel(ctx), key) }()
	for i := range probes {
		if i > 0 && ps[i-1].server.Nanosecond() == 0 { // whole seconds: spread the probes over one
			select {
			case <-ctx.Done():
				return Clock{}, ctx.Err()
			case <-time.After(time.Second / probes):
			}
		}
		t0 := time.Now()
		if err := b.Put(ctx, key, bytes.NewReader([]byte("clock")), 5); err != nil {
			return Clock{}, fmt.Errorf("clock probe: %w", err)
		}
		t1 := time.Now()
		var server time.Time
		err := b.List(ctx, key, func(oi storage.ObjectInfo) error {
			if oi.Key == key {
				server = oi.Modified
			}
			return nil
		})
		if err != nil {
			return Clock{}, fmt.Errorf("clock probe: %w", err)
		}
		if server.IsZero() {
			return Clock{}, fmt.Errorf("clock probe: the service stamped no time on %s", key)
		}
		ps = append(ps, stamp{t0, t1, server})
	}
	c, _ := estimate(ps)
	return c, nil
}
