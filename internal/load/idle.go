package load

import (
	"context"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/usage"
)

// IdleProbe is one probe of the search (document.IdleProbe).
type IdleProbe = document.IdleProbe

// IdleSearch finds after how long idle a keep-alive connection is dropped
// (by the server or anything between). Each round probes several idle times
// in parallel on connections of their own and narrows the bracket between
// the longest idle that survived and the shortest that did not; probes
// longer than one already dropped are stopped early, so a round lasts about
// as long as the timeout itself.
type IdleSearch struct {
	// NewClient makes a pooled client; its probe request is BucketExists.
	NewClient ClientFactory
	Min, Max  time.Duration
	// PerRound probes run together; Rounds bounds the rounds.
	PerRound, Rounds int
	// Progress, when set, is told when a round starts.
	Progress func(round int, idles []time.Duration)
}

// IdleResult is what the search found (document.IdleResult, so that
// renderers read it without the load package).
type IdleResult = document.IdleResult

// IdleWorthWriting says whether a search's result is worth writing: a search
// that failed before any probe ran has only its error to show, while one
// stopped later (a cancel, a failed round) keeps the probes it made.
func IdleWorthWriting(res IdleResult, err error) bool {
	return err == nil || len(res.Probes) > 0
}

// Run searches; it returns what it has when ctx ends.
func (s *IdleSearch) Run(ctx context.Context) (IdleResult, error) {
	start := time.Now()
	per, rounds := max(s.PerRound, 2), max(s.Rounds, 1)
	res := IdleResult{}
	lo, hi := time.Duration(0), time.Duration(0) // hi 0: no drop seen
	points := geometric(s.Min, s.Max, per)
	for round := 1; round <= rounds && len(points) > 0; round++ {
		if s.Progress != nil {
			s.Progress(round, points)
		}
		probes, err := s.round(ctx, round, points)
		res.Probes = append(res.Probes, probes...)
		if err != nil {
			res.Lower, res.Upper, res.Wall = lo, hi, time.Since(start)
			return res, err
		}
		for _, p := range probes {
			switch {
			case p.Skipped || p.Err != "":
			case p.Reused && p.Idle > lo:
				lo = p.Idle
			case !p.Reused && (hi == 0 || p.Idle < hi):
				hi = p.Idle
			}
		}
		if hi == 0 || hi-lo <= max(hi/20, 100*time.Millisecond) {
			break
		}
		points = linear(lo, hi, per)
	}
	res.Lower, res.Upper, res.Wall = lo, hi, time.Since(start)
	return res, nil
}

// round runs one probe per idle time, all at once, shortest first to finish.
func (s *IdleSearch) round(ctx context.Context, round int, idles []time.Duration) ([]IdleProbe, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	dropped := time.Duration(math.MaxInt64)
	stops := make([]chan struct{}, len(idles))
	for i := range stops {
		stops[i] = make(chan struct{})
	}
	probes := make([]IdleProbe, len(idles))
	var wg sync.WaitGroup
	for i, idle := range idles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := s.probe(ctx, idle, stops[i])
			p.Round = round
			mu.Lock()
			defer mu.Unlock()
			probes[i] = p
			if !p.Reused && !p.Skipped && p.Err == "" && idle < dropped {
				dropped = idle
				for j, other := range idles { // longer idles would be dropped too
					if other > idle {
						select {
						case <-stops[j]:
						default:
							close(stops[j])
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	sort.Slice(probes, func(i, j int) bool { return probes[i].Idle < probes[j].Idle })
	return probes, ctx.Err()
}

func (s *IdleSearch) probe(ctx context.Context, idle time.Duration, stop <-chan struct{}) IdleProbe {
	p := IdleProbe{Idle: idle}
	c, err := s.NewClient(ctx)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	defer c.Close()
	if _, err := c.Backend.BucketExists(ctx); err != nil { // opens the connection
		p.Err = err.Error()
		return p
	}
	t := time.NewTimer(idle)
	select {
	case <-ctx.Done():
		t.Stop()
		p.Err = ctx.Err().Error()
		return p
	case <-stop:
		t.Stop()
		p.Skipped = true
		return p
	case <-t.C:
	}
	smp, err := Timed(ctx, 0, func(ctx context.Context) error {
		_, err := c.Backend.BucketExists(ctx)
		return err
	})
	if err != nil {
		p.Err = err.Error()
		return p
	}
	p.Reused = smp.Reused && smp.Reconnects == 0
	return p
}

// geometric spaces n points from lo to hi by equal ratios.
func geometric(lo, hi time.Duration, n int) []time.Duration {
	lo = max(lo, 10*time.Millisecond)
	if hi <= lo {
		return []time.Duration{lo}
	}
	out := make([]time.Duration, n)
	r := math.Pow(float64(hi)/float64(lo), 1/float64(n-1))
	for i := range out {
		out[i] = time.Duration(float64(lo) * math.Pow(r, float64(i))).Round(time.Millisecond)
	}
	out[n-1] = hi
	return out
}

// linear spaces n points strictly between lo and hi.
func linear(lo, hi time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	step := (hi - lo) / time.Duration(n+1)
	for i := range out {
		out[i] = (lo + step*time.Duration(i+1)).Round(time.Millisecond)
	}
	return out
}

// Check says whether the search is bounded as a user may ask: 0 < Min <
// Max <= 24h, 2 to 64 probes per round and 1 to 10 rounds.
func (s *IdleSearch) Check() error {
	if s.Min <= 0 || s.Max <= s.Min || s.Max > 24*time.Hour {
		return usage.Fieldf("{Min} and {Max} must satisfy 0 < min < max <= 24h")
	}
	if s.PerRound < 2 || s.PerRound > 64 || s.Rounds < 1 || s.Rounds > 10 {
		return usage.Fieldf("{PerRound} must be 2-64 and {Rounds} 1-10")
	}
	return nil
}
