package storage

import (
	"context"
	"io"
	"sync"
)

// UploadParts reads size bytes from body in parts of partSize and calls put
// for each (numbered from 0) with at most parallel in flight; it returns the
// first error and stops the rest. Providers' multipart uploads share it.
func UploadParts(ctx context.Context, body io.Reader, size, partSize int64, parallel int,
	put func(ctx context.Context, i int, part []byte) error) error {
	n := max((size+partSize-1)/partSize, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	fail := func(err error) { once.Do(func() { first = err; cancel() }) }
	for i := range n {
		buf := make([]byte, min(partSize, size-i*partSize))
		if _, err := io.ReadFull(body, buf); err != nil {
			fail(err)
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := put(ctx, int(i), buf); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}
