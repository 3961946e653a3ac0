package load

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
)

// flakyPuts is a backend whose uploads of keys ending in one of fail fail
// (a reset, as a faulty network gives), and whose every upload takes
// delay: a write step then stores only some of its keys.
type flakyPuts struct {
	storage.Backend
	fail  []string
	delay time.Duration
}

func (f flakyPuts) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, s := range f.fail {
		if strings.HasSuffix(key, s) {
			return &storage.Error{Op: "put", Key: key, Class: storage.ClassReset, Err: fmt.Errorf("injected reset")}
		}
	}
	return f.Backend.Put(ctx, key, body, size)
}

func flakyClients(bucket string, fail []string, delay time.Duration) ClientFactory {
	return func(context.Context) (*Client, error) {
		return &Client{Backend: flakyPuts{Backend: mem.New(bucket, true), fail: fail, delay: delay}}, nil
	}
}

// TestReadStepsReadOnlyWhatWasStored is issue 28's first defect: a read
// step (GET, HEAD, DELETE) after a write step that did not store every key
// (an upload failed; the step reached --duration first) must not ask for
// the keys it did not store, and must not count them as storage errors.
func TestReadStepsReadOnlyWhatWasStored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		fail     []string
		delay    time.Duration
		duration time.Duration
		work     []string
	}{
		// Every upload of a key ending in /1 or /3 fails.
		{name: "failed uploads", fail: []string{"/1", "/3"}, work: []string{Latency, Throughput, Concurrency}},
		// The case: uploads of 30 ms under a 100 ms bound store
		// about 3 of 10 objects (any number below 10 shows the defect).
		{name: "duration bound", delay: 30 * time.Millisecond, duration: 100 * time.Millisecond, work: []string{Throughput}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bucket := "stored-" + strings.ReplaceAll(tc.name, " ", "-")
			setup := mem.New(bucket, true)
			o := Defaults()
			o.Workloads = tc.work
			o.Sizes, o.SizeCount, o.Levels, o.LevelSize, o.Gets, o.OpCount, o.OpSizes = []int64{1 << 10}, 10, []int{4}, 1<<10, 20, 5, []int64{10}
			o.Duration = tc.duration
			s := &Session{Runner: &Runner{NewClient: flakyClients(bucket, tc.fail, tc.delay)}, Setup: setup, Prefix: "run/", Opts: o}
			var puts int64
			s.AfterStep = func(r *StepResult) {
				sum := r.Summary
				if r.Step.Op == "put" {
					puts = sum.Count // Count is the operations that succeeded
					return
				}
				if sum.Errors != 0 {
					t.Errorf("%s %s: %d errors (%v): it asked for a key its write step did not store", r.Step.Workload, r.Step.Name(), sum.Errors, sum.ErrorsByClass)
				}
				// The pool's GETs read random pool keys, the concurrency
				// step's reads each key several times; a read step under
				// the duration bound may stop before it read them all.
				pool := r.Step.Workload == Latency && r.Step.Op == "get"
				once := r.Step.Workload != Concurrency && !pool
				if once && (sum.Count > puts || (tc.duration == 0 && sum.Count != puts)) {
					t.Errorf("%s %s: %d operations, want one per object stored (%d)", r.Step.Workload, r.Step.Name(), sum.Count, puts)
				}
			}
			if _, err := s.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if tc.duration > 0 && (puts == 0 || puts >= 10) {
				t.Errorf("%d uploads stored under the bound: the test needs some, not all", puts)
			}
			if _, err := s.Cleanup(time.Minute); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestMixNeverReadsADeletedKey: with a working set of one or two keys, the
// floor of missing keys and the draw must still give every GET and HEAD a
// key that is present.
func TestMixNeverReadsADeletedKey(t *testing.T) {
	t.Parallel()
	ops, err := ParseMix("get=40,head=10,delete=40,put=10")
	if err != nil {
		t.Fatal(err)
	}
	for _, keys := range []int{1, 2, 3, 10} {
		m := NewMix(MixConfig{Ops: ops, Sizes: []Weighted[int64]{{1, 1}}, Keys: keys, Seed: 7}, "p/")
		present := make([]bool, keys)
		for k := range present {
			present[k] = true
		}
		for i := range 2000 {
			op, k := m.Next()
			switch op {
			case "get", "head":
				if !present[k] {
					t.Fatalf("keys %d, draw %d: %s of key %d, which the mix deleted", keys, i, op, k)
				}
			case "delete":
				present[k] = false
			case "put":
				present[k] = true
			}
			m.done(op, k, true)
		}
	}
}

// TestStrategiesDownloadWhatWasStored: when every upload strategy lost an
// object, the downloads still run, on the objects that were stored.
func TestStrategiesDownloadWhatWasStored(t *testing.T) {
	t.Parallel()
	const bucket = "strategies-stored"
	sr := &StrategyRun{
		NewClient: func(StrategySpec) ClientFactory { return flakyClients(bucket, []string{"/3"}, 0) },
		Setup:     mem.New(bucket, true), Prefix: "run/", Objects: 8, Size: 100,
	}
	specs := Strategies(storage.UploadSingle, 4)[:2]
	res, err := sr.Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	gets := 0
	for _, r := range res {
		if r.Op != "get" {
			continue
		}
		gets++
		if !r.Available || r.Errors != 0 || r.Count != 7 || r.Objects != 7 {
			t.Errorf("get %s: available %v (%s), %d of %d objects, %d errors; want the 7 stored, no error",
				r.Spec.Name, r.Available, r.Reason, r.Count, r.Objects, r.Errors)
		}
	}
	if gets != len(specs) {
		t.Errorf("%d download rows, want %d", gets, len(specs))
	}
}

// TestStepsDeleteWhatTheyStored: the throughput and concurrency steps
// delete the objects they stored once their reads are done (a batch at a
// time from what was stored, not a list of every key made at plan time),
// before the run's final cleanup, and keep an object that was there before.
func TestStepsDeleteWhatTheyStored(t *testing.T) {
	t.Parallel()
	const bucket = "steps-delete"
	setup := mem.New(bucket, true)
	ctx := context.Background()
	kept := "run/tp/1KiB/3" // one of the keys the step writes, there before the run
	if err := setup.Put(ctx, kept, strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	o := Defaults()
	o.Workloads = []string{Throughput, Concurrency}
	o.Sizes, o.SizeCount, o.Levels, o.LevelSize = []int64{1 << 10}, 2*cleanupBatch+5, []int{4}, 1<<10
	s := &Session{Runner: &Runner{NewClient: flakyClients(bucket, []string{"/1"}, 0)}, Setup: setup, Prefix: "run/", Opts: o,
		Keep: map[string]bool{kept: true}}
	if _, err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	var left []string
	_ = setup.List(ctx, "run/", func(oi storage.ObjectInfo) error { left = append(left, oi.Key); return nil })
	if len(left) != 1 || left[0] != kept {
		t.Errorf("after the steps, before cleanup: %d objects left (%q), want only %s", len(left), left[:min(len(left), 3)], kept)
	}
}
