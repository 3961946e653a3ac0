package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/units"
)

// runFlags are the raw flag values of `objbench run`.
type runFlags struct {
	targetFlags
	saveFlags
	viewFlags
	conn               string
	expectContinue     bool
	workloads          string
	objects            int
	objectSize         string
	gets               int
	latencyConcurrency int
	opSizes            string
	opCount            int
	sizes              string
	sizeCount          int
	levels             string
	levelSize          string
	requests           int
	duration           time.Duration
	maxAttempts        int
	jsonOut            bool
	output             string
	quiet              bool
	open               openFlags
	shards             shardFlags
}

func joinSizes(s []int64) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = units.FormatSize(n)
	}
	return strings.Join(parts, ",")
}

func joinInts(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ",")
}

// options turns flags into workload options, or a usage error.
func (f *runFlags) options() (load.Options, error) {
	o := load.Defaults()
	var err error
	if o.Workloads, err = load.ParseWorkloads(f.workloads); err != nil {
		return o, usagef("--workload: %w", err)
	}
	for name, v := range map[string]int{"--objects": f.objects, "--gets": f.gets, "--latency-concurrency": f.latencyConcurrency,
		"--op-count": f.opCount, "--size-count": f.sizeCount, "--max-attempts": f.maxAttempts} {
		if v <= 0 {
			return o, usagef("%s must be a positive count, got %d", name, v)
		}
	}
	if f.requests < 0 {
		return o, usagef("--requests must be positive (or 0 for the defaults), got %d", f.requests)
	}
	if f.duration < 0 {
		return o, usagef("--duration must not be negative")
	}
	o.PoolObjects, o.Gets, o.LatencyConcurrency, o.OpCount, o.SizeCount = f.objects, f.gets, f.latencyConcurrency, f.opCount, f.sizeCount
	o.Requests, o.Duration = f.requests, f.duration
	if o.PoolSize, err = units.ParseSize(f.objectSize); err != nil {
		return o, usagef("--object-size: %w", err)
	}
	if o.OpSizes, err = units.ParseSizes(f.opSizes); err != nil {
		return o, usagef("--op-sizes: %w", err)
	}
	weighted := slices.Contains(o.Workloads, load.Mixed) && strings.Contains(f.sizes, ":") // a mix's size distribution
	if o.Sizes, err = units.ParseSizes(f.sizes); err != nil && !weighted {
		return o, usagef("--sizes: %w", err)
	}
	if o.Levels, err = units.ParseInts(f.levels); err != nil {
		return o, usagef("--concurrency: %w", err)
	}
	if o.LevelSize, err = units.ParseSize(f.levelSize); err != nil {
		return o, usagef("--concurrency-size: %w", err)
	}
	return o, nil
}

// asMap is the options block of the run document.
func (f *runFlags) asMap(strategy nettrace.Strategy) map[string]string {
	return map[string]string{
		"conn": string(strategy), "expect_continue": fmt.Sprint(f.expectContinue),
		"workload": f.workloads, "objects": fmt.Sprint(f.objects), "object_size": f.objectSize,
		"gets": fmt.Sprint(f.gets), "op_sizes": f.opSizes, "op_count": fmt.Sprint(f.opCount),
		"sizes": f.sizes, "size_count": fmt.Sprint(f.sizeCount), "concurrency": f.levels,
		"concurrency_size": f.levelSize, "requests": fmt.Sprint(f.requests),
		"duration": f.duration.String(), "timeout": f.timeout.String(), "max_attempts": fmt.Sprint(f.maxAttempts),
		"upload": f.upload, "part_size": f.partSize, "client": f.client, "part_concurrency": fmt.Sprint(f.partConcurrency),
	}
}
