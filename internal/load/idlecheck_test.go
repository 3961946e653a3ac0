package load

import (
	"testing"
	"time"
)

func TestIdleSearchCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		min, max         time.Duration
		perRound, rounds int
		ok               bool
	}{
		{time.Second, 2 * time.Minute, 8, 3, true},
		{time.Second, 24 * time.Hour, 2, 1, true},
		{time.Second, 24*time.Hour + 1, 8, 3, false},
		{0, time.Minute, 8, 3, false},
		{time.Minute, time.Minute, 8, 3, false},
		{time.Second, time.Minute, 1, 3, false},
		{time.Second, time.Minute, 65, 3, false},
		{time.Second, time.Minute, 64, 10, true},
		{time.Second, time.Minute, 8, 0, false},
		{time.Second, time.Minute, 8, 11, false},
	}
	for _, c := range cases {
		s := &IdleSearch{Min: c.min, Max: c.max, PerRound: c.perRound, Rounds: c.rounds}
		if err := s.Check(); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
