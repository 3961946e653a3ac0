package probe

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage/mem"
)

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      Options
		want    Options
		wantErr string
	}{
		{"defaults", Options{}, Options{Count: 50, Pool: 10, Size: 1024}, ""},
		{"kept", Options{Count: 3, Pool: 2, Size: 7}, Options{Count: 3, Pool: 2, Size: 7}, ""},
		{"count too large", Options{Count: MaxCount + 1}, Options{}, "count"},
		{"negative pool", Options{Pool: -1}, Options{}, "pool"},
		{"size too large", Options{Size: MaxSize + 1}, Options{}, "size"},
	}
	for _, tt := range tests {
		got, err := tt.in.WithDefaults()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Count != tt.want.Count || got.Pool != tt.want.Pool || got.Size != tt.want.Size || got.Timeout <= 0 {
			t.Errorf("%s: %+v %v, want %+v", tt.name, got, err, tt.want)
		}
	}
}

func TestPoolKeys(t *testing.T) {
	t.Parallel()
	got := PoolKeys("objbench/probe/", 10, 1024)
	if len(got) != 10 || got[0] != "objbench/probe/10_1_1024.obj" || got[9] != "objbench/probe/10_10_1024.obj" {
		t.Errorf("keys %v", got)
	}
}

func memTarget(bucket string) *Target {
	return &Target{Client: &load.Client{Backend: mem.New(bucket, true)}, Setup: mem.New(bucket, true), Prefix: "objbench/probe/", Strategy: "pooled"}
}

// TestRounds: a missing pool is refused without Prepare and made with it;
// seq counts across rounds while each round's first request is its own
// first_request; hooks see every request and the round.
func TestRounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg := memTarget("probe-rounds")
	_, err := Run(ctx, tg, Options{Count: 5, Pool: 3}, Hooks{})
	if !errors.Is(err, ErrPoolMissing) || !strings.Contains(err.Error(), "3 of 3") {
		t.Fatalf("no pool: %v", err)
	}
	var seen []int
	var rounds int
	h := Hooks{
		OnSample: func(_ *Target, s *nettrace.Sample) { seen = append(seen, s.Seq) },
		OnRound:  func(_ context.Context, r *Round) { rounds++ },
	}
	r1, err := Run(ctx, tg, Options{Count: 5, Pool: 3, Prepare: true}, h)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Run(ctx, tg, Options{Count: 4, Pool: 3}, h) // the pool is there now
	if err != nil {
		t.Fatal(err)
	}
	if r1.Number != 1 || r2.Number != 2 || rounds != 2 || tg.Seq() != 9 {
		t.Errorf("rounds %d %d (hook saw %d), seq %d", r1.Number, r2.Number, rounds, tg.Seq())
	}
	if len(seen) != 9 || seen[0] != 0 || seen[5] != 5 || seen[8] != 8 {
		t.Errorf("seq seen by the hook: %v", seen)
	}
	if r2.Samples[0].Seq != 5 || r2.Result.FirstRequest.Count != 1 || r2.Result.LaterRequests.Count != 3 || r2.Result.Count != 4 {
		t.Errorf("round 2: first seq %d, first %d later %d count %d", r2.Samples[0].Seq, r2.Result.FirstRequest.Count, r2.Result.LaterRequests.Count, r2.Result.Count)
	}
	for _, s := range r2.Samples {
		if !strings.HasPrefix(s.Key, "objbench/probe/3_") || s.Size != 1024 || !s.OK() {
			t.Errorf("sample %+v", s)
		}
	}
	if len(r2.Histograms["ttfb"]) == 0 || r2.Failed != 0 {
		t.Errorf("histograms %d bytes, failed %d", len(r2.Histograms["ttfb"]), r2.Failed)
	}
}

func TestRoundStopsWithContext(t *testing.T) {
	t.Parallel()
	tg := memTarget("probe-cancel")
	if _, err := Run(context.Background(), tg, Options{Count: 1, Pool: 2, Prepare: true}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	r, err := Run(ctx, tg, Options{Count: 1000, Pool: 2}, Hooks{OnSample: func(*Target, *nettrace.Sample) {
		if n++; n == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || r == nil || len(r.Samples) != 3 {
		t.Errorf("cancelled round: %v, %d samples", err, len(r.Samples))
	}
}
