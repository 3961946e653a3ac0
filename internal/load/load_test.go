package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
	"github.com/objbench/objbench/internal/units"
)

func memClients(bucket string) ClientFactory {
	return func(context.Context) (*Client, error) { return &Client{Backend: mem.New(bucket, true)}, nil }
}

func TestRunnerBoundedByCount(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	r := &Runner{NewClient: memClients("runner-count")}
	st := &Step{Op: "get", Concurrency: 4, Requests: 103, Key: func(i int) string { return fmt.Sprint(i) },
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			calls.Add(1)
			time.Sleep(time.Millisecond) // every worker gets a turn
			return nil
		}}
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 103 || res.Summary.Count != 103 || res.Summary.FirstRequest.Count != 4 || res.Interrupted {
		t.Errorf("calls %d count %d first %d interrupted %v", calls.Load(), res.Summary.Count, res.Summary.FirstRequest.Count, res.Interrupted)
	}
}

func TestRunnerBoundedByDuration(t *testing.T) {
	t.Parallel()
	r := &Runner{NewClient: memClients("runner-duration")}
	st := &Step{Op: "get", Concurrency: 2, Requests: 1 << 30, Duration: 200 * time.Millisecond, Key: func(int) string { return "k" },
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			select {
			case <-time.After(5 * time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}
	start := time.Now()
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second || res.Summary.Count == 0 || res.Summary.Errors != 0 {
		t.Errorf("elapsed %v count %d errors %d: the in-flight operation at the bound must be dropped, not counted", el, res.Summary.Count, res.Summary.Errors)
	}
}

func TestRunnerErrorsClassified(t *testing.T) {
	t.Parallel()
	r := &Runner{NewClient: memClients("runner-errors"), Timeout: 20 * time.Millisecond}
	st := &Step{Op: "get", Concurrency: 1, Requests: 30, Key: func(i int) string { return fmt.Sprint(i) },
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			switch key[len(key)-1] {
			case '0': // slow: the per-operation timeout fires
				<-ctx.Done()
				return ctx.Err()
			case '1':
				return &storage.Error{Op: "get", Status: 503, Class: storage.ClassThrottled}
			}
			return nil
		}}
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Count != 24 || s.Errors != 6 || s.ErrorsByClass["timeout"] != 3 || s.ErrorsByClass["throttled"] != 3 {
		t.Errorf("count %d errors %d by class %v", s.Count, s.Errors, s.ErrorsByClass)
	}
	if res.FirstError == "" {
		t.Error("no first error kept")
	}
}

func TestRunnerInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{NewClient: memClients("runner-interrupt")}
	var n atomic.Int64
	st := &Step{Op: "get", Concurrency: 2, Requests: 1 << 30, Key: func(int) string { return "k" },
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			if n.Add(1) == 50 {
				cancel()
			}
			return ctx.Err()
		}}
	res, err := r.Run(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Summary.Errors != 0 || res.Summary.Count < 40 {
		t.Errorf("interrupted %v count %d errors %d", res.Interrupted, res.Summary.Count, res.Summary.Errors)
	}
}

func TestSessionWritesOnlyUnderPrefixAndCleansUp(t *testing.T) {
	t.Parallel()
	const bucket = "session-cleanup"
	setup := mem.New(bucket, true)
	ctx := context.Background()
	// An object that was there before the run, inside and outside the prefix.
	for _, k := range []string{"keep/outside", "run/pool/0"} {
		if err := setup.Put(ctx, k, bytes.NewReader([]byte("mine")), 4); err != nil {
			t.Fatal(err)
		}
	}
	o := Defaults()
	o.Sizes, o.SizeCount, o.Levels, o.LevelSize, o.Gets, o.OpCount, o.OpSizes = []int64{1 << 10}, 2, []int{2}, 1<<10, 20, 2, []int64{0, 10}
	s := &Session{Runner: &Runner{NewClient: memClients(bucket)}, Setup: setup, Prefix: "run/", Opts: o,
		Keep: map[string]bool{"run/pool/0": true}}
	var steps []string
	s.AfterStep = func(r *StepResult) {
		steps = append(steps, r.Step.Workload+" "+r.Step.Name())
		if r.Summary.Errors != 0 {
			t.Errorf("%s: %d errors: %s", r.Step.Name(), r.Summary.Errors, r.FirstError)
		}
	}
	if _, err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(steps) != 1+3*2+2+2 {
		t.Errorf("%d steps: %q", len(steps), steps)
	}
	if _, err := s.Cleanup(time.Minute); err != nil {
		t.Fatal(err)
	}
	var left []string
	_ = setup.List(ctx, "", func(oi storage.ObjectInfo) error { left = append(left, oi.Key); return nil })
	if strings.Join(left, ",") != "keep/outside,run/pool/0" {
		t.Errorf("after cleanup: %q, want only the objects that were there before", left)
	}
}

func TestDeleteRefusesForeignKeys(t *testing.T) {
	t.Parallel()
	s := &Session{Prefix: "run/", Keep: map[string]bool{"run/old": true}}
	b := mem.New("refuse", true)
	for _, k := range []string{"other/x", "run/old"} {
		if err := s.delete(context.Background(), b, k); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("delete %q: %v", k, err)
		}
	}
}

func TestParseWorkloadsAndInts(t *testing.T) {
	t.Parallel()
	if w, err := ParseWorkloads("latency, throughput,latency"); err != nil || strings.Join(w, ",") != "latency,throughput" {
		t.Errorf("ParseWorkloads = %v %v", w, err)
	}
	if w, err := ParseWorkloads("all"); err != nil || len(w) != 3 {
		t.Errorf("all = %v %v", w, err)
	}
	for _, bad := range []string{"", "speed", ","} {
		if _, err := ParseWorkloads(bad); err == nil {
			t.Errorf("ParseWorkloads(%q) accepted", bad)
		}
	}
	if n, err := units.ParseInts("1, 5,10"); err != nil || fmt.Sprint(n) != "[1 5 10]" {
		t.Errorf("ParseInts = %v %v", n, err)
	}
	for _, bad := range []string{"0", "-1", "x", ""} {
		if _, err := units.ParseInts(bad); err == nil {
			t.Errorf("units.ParseInts(%q) accepted", bad)
		}
	}
}

func TestGetDetectsShortRead(t *testing.T) {
	t.Parallel()
	b := mem.New("short", true)
	if err := b.Put(context.Background(), "k", bytes.NewReader(make([]byte, 10)), 10); err != nil {
		t.Fatal(err)
	}
	s := &Session{}
	err := s.get(20)(context.Background(), b, "k")
	var se *storage.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "short read") {
		t.Errorf("err = %v", err)
	}
}

func TestRunnerMeasuresClientCPU(t *testing.T) {
	t.Parallel()
	if _, ok := stats.ProcessCPU(); !ok {
		t.Skip("no process CPU count on this platform")
	}
	r := &Runner{NewClient: memClients("runner-cpu")}
	const n = 20
	st := &Step{Op: "get", Concurrency: 2, Requests: n, Key: func(i int) string { return fmt.Sprint(i) },
		Do: func(ctx context.Context, b storage.Backend, key string) error {
			// Each operation burns at least 1 ms of the process's CPU.
			c0, _ := stats.ProcessCPU()
			for {
				if c, _ := stats.ProcessCPU(); c-c0 >= time.Millisecond || ctx.Err() != nil {
					return ctx.Err()
				}
			}
		}}
	res, err := r.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	// Two workers may burn their milliseconds at the same time: at least
	// n/2 ms in all.
	if res.Summary.Count != n || res.Summary.ClientCPU < n/2*time.Millisecond {
		t.Errorf("count %d, client CPU %v, want at least %v", res.Summary.Count, res.Summary.ClientCPU, n/2*time.Millisecond)
	}
}
