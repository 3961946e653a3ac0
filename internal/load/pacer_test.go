package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/storage"
)

// schedule is a pacer that intends operation i at base + i*gap, without
// waiting, and records which operations it was asked about.
type schedule struct {
	base time.Time
	gap  time.Duration
	mu   sync.Mutex
	seen map[int]bool
	stop int // Wait fails from this operation on (0: never)
}

func (p *schedule) Wait(ctx context.Context, i int) (time.Time, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop > 0 && i >= p.stop {
		return time.Time{}, errors.New("schedule over")
	}
	p.seen[i] = true
	return p.base.Add(time.Duration(i) * p.gap), nil
}

func TestRunnerAsksThePacer(t *testing.T) {
	t.Parallel()
	step := func(p Pacer) *Step {
		return &Step{Op: "get", Concurrency: 3, Requests: 30, Pacer: p, Key: func(i int) string { return fmt.Sprint(i) },
			Do: func(context.Context, storage.Backend, string) error { return nil }}
	}
	r := &Runner{NewClient: memClients("runner-pacer")}

	res, err := r.Run(context.Background(), step(nil))
	if err != nil || res.StartLag != 0 || res.Summary.Count != 30 {
		t.Fatalf("closed loop: lag %v count %d err %v; want no lag, 30 ops", res.StartLag, res.Summary.Count, err)
	}

	// Every operation intended an hour ago: each starts about an hour late.
	late := &schedule{base: time.Now().Add(-time.Hour), seen: map[int]bool{}}
	res, err = r.Run(context.Background(), step(late))
	if err != nil || len(late.seen) != 30 || res.Summary.Count != 30 {
		t.Fatalf("paced: asked about %d ops, count %d, err %v; want 30", len(late.seen), res.Summary.Count, err)
	}
	if res.StartLag < time.Hour || res.StartLag > 2*time.Hour {
		t.Errorf("start lag %v, want about an hour", res.StartLag)
	}

	// A pacer that ends the schedule ends the step.
	short := &schedule{base: time.Now(), seen: map[int]bool{}, stop: 10}
	if res, err = r.Run(context.Background(), step(short)); err != nil || res.Summary.Count != 10 {
		t.Fatalf("schedule of 10: count %d, err %v", res.Summary.Count, err)
	}
}

func TestTimed(t *testing.T) {
	t.Parallel()
	s, err := Timed(context.Background(), 10*time.Millisecond, func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) || s.Start.IsZero() {
		t.Fatalf("bounded op: %v, start %v; want the deadline and a started sample", err, s.Start)
	}
	if _, err := Timed(context.Background(), 0, func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); ok {
			return errors.New("deadline set")
		}
		return nil
	}); err != nil {
		t.Fatalf("no timeout: %v", err)
	}
}
