package load

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

// Workload names.
const (
	Latency     = "latency"
	Throughput  = "throughput"
	Concurrency = "concurrency"
)

// Workloads lists the known workloads in run order.
var Workloads = []string{Latency, Throughput, Concurrency}

// Options shape the workloads. Zero values take the defaults of Defaults.
type Options struct {
	Workloads []string
	// Latency: a pool of PoolObjects objects of PoolSize, then Gets GETs of
	// random pool keys with LatencyConcurrency workers; then OpCount PUT,
	// HEAD and DELETE at each of OpSizes (what gsutil perfdiag measures).
	PoolObjects        int
	PoolSize           int64
	Gets               int
	LatencyConcurrency int
	OpSizes            []int64
	OpCount            int
	// Throughput: SizeCount single-stream uploads then downloads per size.
	Sizes     []int64
	SizeCount int
	// Concurrency: at each level, LevelRequests(level) writes then reads of LevelSize.
	Levels    []int
	LevelSize int64
	// Ranges (the size sweep of ranged downloads) at each of Sizes: the
	// part sizes and parallelism tried (DefaultSweepPartSizes and
	// DefaultSweepParallel when empty).
	RangePartSizes []int64
	RangeParallel  []int
	// Requests, when > 0, replaces every per-step count above.
	Requests int
	// Duration bounds each step's wall time (0: none).
	Duration time.Duration
	// Mix is the mixed workload's configuration (Workloads holds Mixed).
	Mix MixConfig
	// Open loop (--rate): Pace makes each step's pacer; MaxInflight is
	// then the step's workers and LatencyFrom its latency origin.
	Pace        func() Pacer
	MaxInflight int
	LatencyFrom string
	// Prefixes spreads the objects' keys over that many prefixes
	// (PREFIX/p0/ to PREFIX/pN-1/, object i under p(i mod N)), for a store
	// that limits requests per prefix (S3's partitions); 0 or 1: one.
	Prefixes int
}

// MaxPrefixes bounds --prefixes.
const MaxPrefixes = 1024

// Defaults is the quick suite: well under a minute on the embedded server.
func Defaults() Options {
	return Options{
		Workloads:          append([]string(nil), Workloads...),
		PoolObjects:        10,
		PoolSize:           1 << 10,
		Gets:               1000,
		LatencyConcurrency: 1,
		OpSizes:            []int64{0, 1 << 10, 100 << 10, 1 << 20},
		OpCount:            20,
		Sizes:              []int64{16 << 10, 256 << 10, 1 << 20, 8 << 20, 32 << 20},
		SizeCount:          10,
		Levels:             []int{1, 5, 10, 20},
		LevelSize:          32 << 20,
		Duration:           30 * time.Second,
	}
}

// ParseWorkloads validates a comma-separated --workload value.
func ParseWorkloads(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(strings.ToLower(w))
		if w == "" || seen[w] {
			continue
		}
		if w == Mixed || w == Ranges {
			seen[w] = true
			out = append(out, w)
			continue
		}
		if w == "all" {
			return append([]string(nil), Workloads...), nil
		}
		ok := false
		for _, k := range Workloads {
			ok = ok || k == w
		}
		if !ok {
			return nil, fmt.Errorf("unknown workload %q: use %s, mixed or ranges", w, strings.Join(Workloads, ", "))
		}
		seen[w] = true
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no workload given: use %s", strings.Join(Workloads, ", "))
	}
	return out, nil
}

// readStored is the prepare of read step r: it reads only the keys in
// from, each once when once (at most r's planned count), else r's planned
// count spread over them; nothing when none was stored.
func readStored(r *Step, from *Stored, once bool) func(context.Context) error {
	return func(context.Context) error {
		n, key := from.view()
		if once || n == 0 {
			r.Requests = min(r.Requests, n)
		}
		r.Key = func(i int) string { return key(i % n) }
		return nil
	}
}

// Session runs the workloads of one run under one prefix.
type Session struct {
	Runner *Runner
	// Setup is an unmeasured client for preparing pools and cleaning up, so
	// that measured workers start cold.
	Setup  storage.Backend
	Prefix string
	Opts   Options
	// Keep lists keys that existed before the run (with --force): cleanup
	// never deletes them.
	Keep map[string]bool
	// OnStep, when set, is called before each step with its index and the
	// number of steps, and after it with the result.
	BeforeStep func(i, n int, st *Step)
	AfterStep  func(res *StepResult)

	Written KeySet
	// Download is how a GET reads an object: one stream, or ranges in
	// parallel (--download ranged).
	Download Download
}

// action is one thing the session does: prepare, measure or tidy up.
type action struct {
	prepare func(ctx context.Context) error
	step    *Step
	after   func(ctx context.Context)
}

// Run executes every workload in order and returns the step results so far;
// on cancellation it stops and returns what it has with ctx's error.
// Cleanup is the caller's (Cleanup), so it happens even then.
func (s *Session) Run(ctx context.Context) ([]*StepResult, error) {
	// The binary's code its start touched, given back before the first
	// request, and what the run touched, once it is over.
	stats.ReleaseCode()
	defer stats.ReleaseCode()
	acts := s.plan()
	n := 0
	for _, a := range acts {
		if a.step != nil {
			n++
		}
	}
	var results []*StepResult
	i := 0
	for _, a := range acts {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		if a.prepare != nil {
			if err := a.prepare(ctx); err != nil {
				return results, err
			}
		}
		if a.step != nil {
			i++
			if s.Opts.Pace != nil && a.step.Pacer == nil {
				a.step.Pacer, a.step.LatencyFrom = s.Opts.Pace(), s.Opts.LatencyFrom
				if s.Opts.MaxInflight > 0 {
					a.step.Concurrency = s.Opts.MaxInflight
				}
			}
			if s.BeforeStep != nil {
				s.BeforeStep(i, n, a.step)
			}
			res, err := s.Runner.Run(ctx, a.step)
			if err != nil {
				return results, err
			}
			for _, part := range res.Each() {
				results = append(results, part)
				if s.AfterStep != nil {
					s.AfterStep(part)
				}
			}
			if res.Interrupted {
				return results, ctx.Err()
			}
		}
		if a.after != nil {
			a.after(ctx)
		}
	}
	return results, nil
}

func (s *Session) plan() []action {
	var acts []action
	for _, w := range s.Opts.Workloads {
		switch w {
		case Latency:
			acts = append(acts, s.planLatency()...)
		case Throughput:
			acts = append(acts, s.planThroughput()...)
		case Concurrency:
			acts = append(acts, s.planConcurrency()...)
		case Mixed:
			acts = append(acts, s.planMixed()...)
		case Ranges:
			acts = append(acts, s.planRanges()...)
		}
	}
	return acts
}

func (s *Session) count(def int) int {
	if s.Opts.Requests > 0 {
		return s.Opts.Requests
	}
	return def
}

// spread is the prefix of object i: the run's, or with Opts.Prefixes one
// of that many under it.
func (s *Session) spread(i int) string { return spreadPrefix(s.Prefix, s.Opts.Prefixes, i) }

func spreadPrefix(prefix string, n, i int) string {
	if n <= 1 {
		return prefix
	}
	return prefix + "p" + strconv.Itoa(i%n) + "/"
}

// keys is the key function of a step's count objects named stem (such as
// "lat/1KiB/") plus their index: under the run's prefix, or spread. The
// stems are made once: a key is made per request.
func (s *Session) keys(stem string, count int) func(i int) string {
	stems := make([]string, max(s.Opts.Prefixes, 1))
	for p := range stems {
		stems[p] = s.spread(p) + stem
	}
	return func(i int) string {
		i %= count
		return stems[i%len(stems)] + strconv.Itoa(i)
	}
}

func (s *Session) planLatency() []action {
	o := s.Opts
	pool := make([]string, max(o.PoolObjects, 1))
	for i := range pool {
		pool[i] = fmt.Sprintf("%spool/%d", s.spread(i), i)
	}
	var inPool Stored
	get := &Step{
		Workload: Latency, Op: "get", Size: o.PoolSize, Concurrency: max(o.LatencyConcurrency, 1),
		Requests: s.count(o.Gets), Duration: o.Duration, Do: s.get(o.PoolSize),
	}
	s.withParts(get)
	acts := []action{{
		prepare: func(ctx context.Context) error {
			if err := s.putAll(ctx, pool, o.PoolSize, &inPool); err != nil {
				return err
			}
			keys := inPool.Keys()
			if len(keys) == 0 {
				get.Requests = 0 // nothing to read
			}
			get.Key = func(int) string { return keys[rand.IntN(len(keys))] }
			return nil
		},
		step: get,
	}}
	for _, size := range o.OpSizes {
		n := s.count(o.OpCount)
		key := s.keys("lat/"+units.FormatSize(size)+"/", n)
		base := Step{Workload: Latency, Size: size, Concurrency: max(o.LatencyConcurrency, 1), Requests: n, Duration: o.Duration, Key: key}
		put, head, del := base, base, base
		var stored Stored
		put.Op, put.Do = "put", s.putInto(size, &stored)
		head.Op, head.Do = "head", s.head(size)
		del.Op, del.Do = "delete", s.delete
		acts = append(acts, action{step: &put}, action{prepare: readStored(&head, &stored, true), step: &head},
			action{prepare: readStored(&del, &stored, true), step: &del})
	}
	return acts
}

func (s *Session) planThroughput() []action {
	o := s.Opts
	var acts []action
	for _, size := range o.Sizes {
		n := s.count(o.SizeCount)
		key := s.keys("tp/"+units.FormatSize(size)+"/", n)
		base := Step{Workload: Throughput, Size: size, Concurrency: 1, Requests: n, Duration: o.Duration, Key: key}
		put, get := base, base
		var stored Stored
		put.Op, put.Do = "put", s.putInto(size, &stored)
		get.Op, get.Do = "get", s.get(size)
		s.withParts(&get)
		acts = append(acts, action{step: &put}, action{prepare: readStored(&get, &stored, true), step: &get,
			after: func(ctx context.Context) { s.deleteStored(ctx, &stored) }})
	}
	return acts
}

func (s *Session) planConcurrency() []action {
	o := s.Opts
	var acts []action
	for _, level := range o.Levels {
		n := s.count(2 * level)
		key := s.keys("conc/"+strconv.Itoa(level)+"/", level)
		base := Step{Workload: Concurrency, Size: o.LevelSize, Concurrency: level, Requests: n, Duration: o.Duration, Key: key}
		put, get := base, base
		var stored Stored
		put.Op, put.Do = "put", s.putInto(o.LevelSize, &stored)
		get.Op, get.Do = "get", s.get(o.LevelSize)
		s.withParts(&get)
		acts = append(acts, action{step: &put}, action{prepare: readStored(&get, &stored, false), step: &get,
			after: func(ctx context.Context) { s.deleteStored(ctx, &stored) }})
	}
	return acts
}

func (s *Session) put(size int64) DoFunc { return s.putInto(size, nil) }

// putInto is put that records each key it stored in stored (when not nil),
// for the read steps after it. Written, which cleanup deletes, holds every
// key tried, stored or not.
func (s *Session) putInto(size int64, stored *Stored) DoFunc {
	body := BodyOf(size)
	return func(ctx context.Context, b storage.Backend, key string) error {
		s.Written.Add(key)
		err := b.Put(ctx, key, body.Reader(), size)
		if err == nil && stored != nil {
			stored.Add(key)
		}
		return err
	}
}

func (s *Session) get(size int64) DoFunc {
	return func(ctx context.Context, b storage.Backend, key string) error {
		return s.Download.Get(ctx, b, key, size)
	}
}

func (s *Session) head(size int64) DoFunc {
	return func(ctx context.Context, b storage.Backend, key string) error {
		info, err := b.Head(ctx, key)
		if err != nil {
			return err
		}
		if info.Size != size {
			return &storage.Error{Op: "head", Key: key, Class: storage.ClassOther,
				Err: fmt.Errorf("size %d, want %d", info.Size, size)}
		}
		return nil
	}
}

func (s *Session) delete(ctx context.Context, b storage.Backend, key string) error {
	if !strings.HasPrefix(key, s.Prefix) || s.Keep[key] {
		return fmt.Errorf("refusing to delete %q: not written by this run", key)
	}
	err := b.Delete(ctx, key)
	if err == nil {
		s.Written.Remove(key)
	}
	return err
}

// putAll writes keys with the setup client, eight at a time, and records
// each one stored in stored.
func (s *Session) putAll(ctx context.Context, keys []string, size int64, stored *Stored) error {
	body := BodyOf(size)
	return parallel(ctx, keys, func(ctx context.Context, key string) error {
		s.Written.Add(key)
		if err := s.Setup.Put(ctx, key, body.Reader(), size); err != nil {
			return fmt.Errorf("preparing object pool: %w", err)
		}
		stored.Add(key)
		return nil
	})
}

// deleteStored removes what a step stored once its reads are done, with the
// setup client; failures are left to the final Cleanup.
func (s *Session) deleteStored(ctx context.Context, stored *Stored) {
	s.deleteBatched(context.WithoutCancel(ctx), stored.set.All())
}

// Cleanup deletes every key the run wrote and that is still there. It uses
// its own bounded context so that it also runs after Ctrl-C.
func (s *Session) Cleanup(timeout time.Duration) (deleted int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	deleted, tried, errs := s.deleteBatched(ctx, s.Written.All())
	if len(errs) > 0 {
		return deleted, fmt.Errorf("cleanup: %d of %d objects not deleted, first: %w", len(errs), tried, errs[0])
	}
	return deleted, nil
}

// deleteBatched deletes the keys of seq, never one that was there before
// the run (Keep). The keys are made and deleted a batch at a time, so that
// a run of millions of PUTs deletes them without holding them all as
// strings at once.
func (s *Session) deleteBatched(ctx context.Context, seq iter.Seq[string]) (deleted, tried int, errs []error) {
	var mu sync.Mutex
	del := func(keys []string) {
		tried += len(keys)
		_ = parallel(ctx, keys, func(ctx context.Context, key string) error {
			e := s.delete(ctx, s.Setup, key)
			mu.Lock()
			defer mu.Unlock()
			if e != nil {
				errs = append(errs, e)
			} else {
				deleted++
			}
			return nil
		})
	}
	batch := make([]string, 0, cleanupBatch)
	for k := range seq {
		if s.Keep[k] { // there before the run: never ours to delete
			continue
		}
		if batch = append(batch, k); len(batch) == cleanupBatch {
			del(batch)
			batch = batch[:0]
		}
	}
	del(batch)
	return deleted, tried, errs
}

// cleanupBatch is how many keys Cleanup makes at once.
const cleanupBatch = 1024

// parallel calls fn for every key with up to eight in flight and returns the first error.
func parallel(ctx context.Context, keys []string, fn func(ctx context.Context, key string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, key := range keys {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, key); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	return first
}
