package storage

import (
	"bytes"
	"context"
	"io"
	"sync"
)

// UploadParts reads size bytes from body in parts of partSize and calls put
// for each (numbered from 0) with at most parallel in flight; it returns the
// first error and stops the rest. Providers' multipart uploads share it.
//
// A body that is an io.ReaderAt (objbench's generated bodies, a file) is
// cut into sections read as each part is sent: no part is copied, so the
// memory a multipart upload costs is the SDK's own. Any other body's parts
// are read into buffers, at most parallel+1 at a time (partSize each).
func UploadParts(ctx context.Context, body io.Reader, size, partSize int64, parallel int,
	put func(ctx context.Context, i int, part *io.SectionReader) error) error {
	at, direct := body.(io.ReaderAt)
	var base int64
	if s, ok := body.(io.Seeker); direct && ok { // the parts start where the reader is
		off, err := s.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		base = off
	}
	n := max((size+partSize-1)/partSize, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	fail := func(err error) { once.Do(func() { first = err; cancel() }) }
	for i := range n {
		length := min(partSize, size-i*partSize)
		var part *io.SectionReader
		if direct {
			part = io.NewSectionReader(at, base+i*partSize, length)
		} else {
			buf := make([]byte, length)
			if _, err := io.ReadFull(body, buf); err != nil {
				fail(err)
				break
			}
			part = io.NewSectionReader(bytes.NewReader(buf), 0, length)
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
			if err := put(ctx, int(i), part); err != nil {
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
