package storage

import (
	"context"
	"errors"
	"io"
	"syscall"
	"time"
)

// WithRetries wraps b so that each operation is tried up to attempts times,
// each try bounded by perTry, retrying what a flaky network or service
// throws (reset, throttled, 5xx, timeout — at most maxTimeouts of those) but
// never a refused connection, a missing object or a denied request. It is for
// unmeasured work (preparing pools, cleaning up): measured operations are
// never retried behind the runner's back.
func WithRetries(b Backend, attempts, maxTimeouts int, perTry time.Duration) Backend {
	return &retrying{Backend: b, attempts: max(attempts, 1), maxTimeouts: max(maxTimeouts, 1), perTry: perTry}
}

type retrying struct {
	Backend
	attempts, maxTimeouts int
	perTry                time.Duration
}

func (r *retrying) do(ctx context.Context, fn func(ctx context.Context) error) error {
	var err error
	timeouts := 0
	for i := range r.attempts {
		actx, cancel := context.WithTimeout(ctx, r.perTry)
		err = fn(actx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		class := Classify(err)
		if class == ClassTimeout {
			timeouts++
		}
		retryable := class == ClassReset || class == ClassThrottled || class == ClassServer ||
			(class == ClassTimeout && timeouts < r.maxTimeouts)
		if !retryable || errors.Is(err, syscall.ECONNREFUSED) {
			return err
		}
		t := time.NewTimer(min(50*time.Millisecond<<i, time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
	return err
}

func (r *retrying) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	return r.do(ctx, func(ctx context.Context) error {
		if _, err := body.Seek(0, io.SeekStart); err != nil {
			return err
		}
		return r.Backend.Put(ctx, key, body, size)
	})
}

func (r *retrying) Get(ctx context.Context, key string, w io.Writer) (int64, error) {
	var n int64
	err := r.do(ctx, func(ctx context.Context) error {
		if n > 0 {
			return nil // bytes already written cannot be taken back: no retry
		}
		var err error
		n, err = r.Backend.Get(ctx, key, w)
		if err != nil && n > 0 {
			return &Error{Op: "get", Key: key, Class: ClassOther, Err: err}
		}
		return err
	})
	return n, err
}

func (r *retrying) Head(ctx context.Context, key string) (ObjectInfo, error) {
	var info ObjectInfo
	err := r.do(ctx, func(ctx context.Context) error {
		var err error
		info, err = r.Backend.Head(ctx, key)
		return err
	})
	return info, err
}

func (r *retrying) List(ctx context.Context, prefix string, fn func(ObjectInfo) error) error {
	seen := map[string]bool{}
	return r.do(ctx, func(ctx context.Context) error {
		return r.Backend.List(ctx, prefix, func(oi ObjectInfo) error {
			if seen[oi.Key] { // a retried listing starts over
				return nil
			}
			seen[oi.Key] = true
			return fn(oi)
		})
	})
}

func (r *retrying) Delete(ctx context.Context, key string) error {
	return r.do(ctx, func(ctx context.Context) error { return r.Backend.Delete(ctx, key) })
}

func (r *retrying) BucketExists(ctx context.Context) (bool, error) {
	var ok bool
	err := r.do(ctx, func(ctx context.Context) error {
		var err error
		ok, err = r.Backend.BucketExists(ctx)
		return err
	})
	return ok, err
}

func (r *retrying) CreateBucket(ctx context.Context) error {
	return r.do(ctx, func(ctx context.Context) error { return r.Backend.CreateBucket(ctx) })
}
