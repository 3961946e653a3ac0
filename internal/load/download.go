package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/storage"
)

// Download modes (--download).
const (
	DownloadStream = "stream" // one GET per object, read as it arrives
	DownloadRanged = "ranged" // one object's GET split into byte ranges over a pool
)

// Download is how a GET reads an object. The zero value is one stream.
// Either way the body is checked against the bytes objbench wrote as it
// arrives, then dropped: nothing is held but a block per stream.
type Download struct {
	// Mode is DownloadStream ("" too) or DownloadRanged.
	Mode string
	// PartSize is a range's length (default DefaultRangeSize).
	PartSize int64
	// Parallel is how many ranges of one object are in flight (default
	// DefaultRangeParallel).
	Parallel int
	// Part, when set, is told each range's time and bytes as it ends: the
	// per-part results beside the whole object's.
	Part func(d time.Duration, bytes int64, err error)
}

// Defaults of a ranged download: S3's guidance (8-16 MiB ranges) and what
// fast clients run per object.
const (
	DefaultRangeSize     = 8 << 20
	DefaultRangeParallel = 16
)

// ParseDownload validates a --download value.
func ParseDownload(s string) (string, error) {
	switch s {
	case "", DownloadStream:
		return DownloadStream, nil
	case DownloadRanged:
		return s, nil
	}
	return "", fmt.Errorf("unknown download mode %q: use stream or ranged", s)
}

// Get reads key (size bytes, written by objbench) and checks it. A ranged
// download of an object no larger than one range is one stream.
func (d Download) Get(ctx context.Context, b storage.Backend, key string, size int64) error {
	part := d.PartSize
	if part <= 0 {
		part = DefaultRangeSize
	}
	body := BodyOf(size)
	rg, ok := b.(storage.RangeGetter)
	if d.Mode != DownloadRanged || size <= part || !ok {
		if d.Mode == DownloadRanged && !ok {
			return &storage.Error{Op: "get", Key: key, Class: storage.ClassClient,
				Err: errors.New("this provider's client cannot read ranges: use --download stream")}
		}
		v := body.Verifier(0)
		if _, err := b.Get(ctx, key, v); err != nil {
			return err
		}
		return v.Check("get", key, size)
	}
	parallel := d.Parallel
	if parallel <= 0 {
		parallel = DefaultRangeParallel
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := (size + part - 1) / part
	next := make(chan int64)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel()
		}
		mu.Unlock()
	}
	for range min(int64(parallel), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				off := i * part
				length := min(part, size-off)
				start := time.Now()
				v := body.Verifier(off)
				_, err := rg.GetRange(ctx, key, off, length, v)
				if err == nil {
					err = v.Check("get", key, length)
				}
				if d.Part != nil {
					d.Part(time.Since(start), length, err)
				}
				if err != nil {
					fail(err)
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}
