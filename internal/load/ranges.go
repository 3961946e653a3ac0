package load

import (
	"context"
	"strconv"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

// Ranges is the workload of --workload ranges: a size sweep of ranged
// downloads. For each of --sizes it stores --size-count objects, reads
// them once with one stream each, then once per part size × part
// concurrency of the grid (RangePartSizes × RangeParallel), one object
// at a time, so that each step's throughput is one object's. The
// analysis names, per size, the configuration that reads fastest and
// what it gains over the one stream.
const Ranges = "ranges"

// The sweep's default grid: the part sizes and parallelism fast clients
// and S3's guidance use.
var (
	DefaultSweepPartSizes = []int64{4 << 20, 8 << 20, 16 << 20, 32 << 20}
	DefaultSweepParallel  = []int{4, 8, 16}
)

// Bounds of a sweep's grid (--sweep-part-sizes, --sweep-parallel): a
// smaller range is a request per few packets, and more ranges at a time
// than this only measure the client's own scheduling.
const (
	MinRangePart     = 64 << 10
	MaxRangeParallel = 256
)

// rangeGrid is the grid's points worth measuring for an object of size:
// part sizes below it, and for each only the parallelism that differ (a
// level at or above the part count reads all parts at once, as does any
// higher one).
func rangeGrid(size int64, parts []int64, parallel []int) []Download {
	var out []Download
	for _, ps := range parts {
		if ps <= 0 || ps >= size {
			continue
		}
		n := int((size + ps - 1) / ps)
		for _, p := range parallel {
			if p <= 0 {
				continue
			}
			out = append(out, Download{Mode: DownloadRanged, PartSize: ps, Parallel: p})
			if p >= n {
				break
			}
		}
	}
	return out
}

func (s *Session) planRanges() []action {
	o := s.Opts
	parts, parallel := o.RangePartSizes, o.RangeParallel
	if len(parts) == 0 {
		parts = DefaultSweepPartSizes
	}
	if len(parallel) == 0 {
		parallel = DefaultSweepParallel
	}
	var acts []action
	for _, size := range o.Sizes {
		n := s.count(o.SizeCount)
		stem := s.Prefix + "ranges/" + units.FormatSize(size) + "/"
		key := func(i int) string { return stem + strconv.Itoa(i%n) }
		base := Step{Workload: Ranges, Size: size, Concurrency: 1, Requests: n, Duration: o.Duration, Key: key}
		put, stream := base, base
		var stored Stored
		put.Op, put.Do = "put", s.putInto(size, &stored)
		stream.Op = "get"
		one := Download{Mode: DownloadStream}
		stream.Do = func(ctx context.Context, b storage.Backend, key string) error { return one.Get(ctx, b, key, size) }
		acts = append(acts, action{step: &put}, action{prepare: readStored(&stream, &stored, true), step: &stream})
		for _, d := range rangeGrid(size, parts, parallel) {
			get := base
			get.Op = "get"
			ps := &PartStats{Size: d.PartSize, Parallel: d.Parallel}
			d.Part = ps.add
			get.Parts = ps
			get.Do = func(ctx context.Context, b storage.Backend, key string) error { return d.Get(ctx, b, key, size) }
			acts = append(acts, action{prepare: readStored(&get, &stored, true), step: &get})
		}
		acts[len(acts)-1].after = func(ctx context.Context) { s.deleteStored(ctx, &stored) }
	}
	return acts
}
