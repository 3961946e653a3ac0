package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/stats"
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

// PartStats records a ranged GET step's parts: how long each range took,
// beside the step's result per object. Safe for concurrent use.
type PartStats struct {
	// Size is the range length asked for (the last of an object may be
	// shorter); Parallel how many were in flight per object.
	Size     int64
	Parallel int
	mu       sync.Mutex
	lat      *stats.LagRecorder
	count    int64
	errors   int64
	bytes    int64
	busy     time.Duration
}

func (p *PartStats) add(d time.Duration, n int64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.errors++
		return
	}
	if p.lat == nil {
		p.lat = stats.NewLagRecorder()
	}
	p.lat.Add(d)
	p.count++
	p.bytes += n
	p.busy += d
}

// Result is the parts' count, failures, time per part (ms) and mean
// throughput per part (MB/s, 10^6 bytes/s).
func (p *PartStats) Result() (count, errors int64, ms stats.Dist, mbps float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lat != nil {
		ms = p.lat.Dist()
	}
	if p.busy > 0 {
		mbps = float64(p.bytes) / p.busy.Seconds() / 1e6
	}
	return p.count, p.errors, ms, mbps
}

// withParts makes a GET step of a ranged download record its parts
// (Step.Parts); other steps are left as they are.
func (s *Session) withParts(st *Step) {
	if s.Download.Mode != DownloadRanged || st.Op != "get" {
		return
	}
	d := s.Download
	if d.PartSize <= 0 {
		d.PartSize = DefaultRangeSize
	}
	if d.Parallel <= 0 {
		d.Parallel = DefaultRangeParallel
	}
	if st.Size <= d.PartSize { // one stream: no parts
		return
	}
	ps := &PartStats{Size: d.PartSize, Parallel: d.Parallel}
	d.Part = ps.add
	st.Parts = ps
	size := st.Size
	st.Do = func(ctx context.Context, b storage.Backend, key string) error { return d.Get(ctx, b, key, size) }
}
