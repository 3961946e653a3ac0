package stats

import "fmt"

// MaxIntervals is the most intervals a step's series keeps per op. Past
// it, adjacent intervals merge pairwise and later ones are merged to the
// new length as they come, so that the series covers the whole step with
// intervals of 2, 4, 8... ticks, and its memory is bounded whatever the
// step's length. An interval holds two encoded histograms, 2-4 KB at
// 2,500 operations a second: a 67-minute open-loop step at 1 s (4,000
// intervals) held about 13 MB of them, and as much again when the series
// was encoded after the step; 512 intervals hold under 2 MB.
const MaxIntervals = 512

// Series is one op's intervals over a step, at most MaxIntervals of them
// (see NewSeries). Ticks are the intervals as drained, Ticks the number of
// ticks each kept interval spans. Not safe for concurrent use.
type Series struct {
	max   int
	ivs   []Interval
	ticks int // ticks per kept interval: 1, 2, 4...
	last  int // ticks merged into the last kept interval
	sum   *Sum
	acc   *IntervalRecorder // Drain's, reused
}

// NewSeries returns an empty series that keeps at most limit intervals
// (MaxIntervals when limit <= 0; rounded up to an even number), each of
// ticks ticks or more (at least 1).
func NewSeries(limit, ticks int) *Series {
	if limit <= 0 {
		limit = MaxIntervals
	}
	return &Series{max: limit + limit%2, ticks: max(ticks, 1)}
}

// TicksFor is the ticks per interval that a step planned to last planned
// ticks starts with: the least power of two that fits it in half of
// MaxIntervals, so that the intervals double only if the step runs twice
// as long as planned. Shards of one run plan alike, so that their series
// have the same intervals, merged one by one (internal/merge), even when
// one shard ends a tick after another.
func TicksFor(planned float64) int {
	t := 1
	for planned/float64(t) > MaxIntervals/2 {
		t *= 2
	}
	return t
}

// Add appends one tick's interval (the next in time): to the last kept
// interval while that spans fewer ticks than the others, else as a new
// one, after merging the kept ones pairwise when there are max already.
func (s *Series) Add(iv Interval) error {
	if n := len(s.ivs); n > 0 && s.last < s.ticks {
		m, err := s.merge(s.ivs[n-1], iv)
		if err != nil {
			return err
		}
		s.ivs[n-1], s.last = m, s.last+1
		return nil
	}
	if len(s.ivs) >= s.max {
		// Every kept interval spans s.ticks: merged pairwise, they span twice.
		half := len(s.ivs) / 2
		for i := range half {
			m, err := s.merge(s.ivs[2*i], s.ivs[2*i+1])
			if err != nil {
				return err
			}
			s.ivs[i] = m
		}
		clear(s.ivs[half:])
		s.ivs, s.ticks = s.ivs[:half], s.ticks*2
	}
	s.ivs, s.last = append(s.ivs, iv), 1
	return nil
}

// Len is the number of intervals kept.
func (s *Series) Len() int { return len(s.ivs) }

// Ticks is the number of ticks each kept interval spans (the last one may
// span fewer): 1 until the step outlasts max intervals.
func (s *Series) Ticks() int { return s.ticks }

// Intervals are the kept intervals, in order (not a copy).
func (s *Series) Intervals() []Interval { return s.ivs }

// merge is a and b (b following a) as one interval: counts added, the
// most in flight, the histograms summed exactly.
func (s *Series) merge(a, b Interval) (Interval, error) {
	if s.sum == nil {
		s.sum = NewSum()
	}
	m := a
	m.EndS = b.EndS
	m.AddCounts(b)
	for _, h := range []struct {
		dst          *string
		first, other string
	}{{&m.TTFB, a.TTFB, b.TTFB}, {&m.Total, a.Total, b.Total}} {
		s.sum.Reset()
		if err := s.sum.AddEncoded(h.first); err != nil {
			return m, fmt.Errorf("merge intervals: %w", err)
		}
		if err := s.sum.AddEncoded(h.other); err != nil {
			return m, fmt.Errorf("merge intervals: %w", err)
		}
		enc, err := s.sum.EncodeFast()
		if err != nil {
			return m, fmt.Errorf("merge intervals: %w", err)
		}
		*h.dst = enc
	}
	return m, nil
}
