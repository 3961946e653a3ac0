package load

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestIdleSearchCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		min, max         time.Duration
		perRound, rounds int
		ok               bool
		field            string // the setting a refusal names first
	}{
		{time.Second, 2 * time.Minute, 8, 3, true, ""},
		{time.Second, 24 * time.Hour, 2, 1, true, ""},
		{time.Second, 24*time.Hour + 1, 8, 3, false, "Min"},
		{0, time.Minute, 8, 3, false, "Min"},
		{time.Minute, time.Minute, 8, 3, false, "Min"},
		{time.Second, time.Minute, 1, 3, false, "PerRound"},
		{time.Second, time.Minute, 65, 3, false, "PerRound"},
		{time.Second, time.Minute, 64, 10, true, ""},
		{time.Second, time.Minute, 8, 0, false, "PerRound"},
		{time.Second, time.Minute, 8, 11, false, "PerRound"},
	}
	for _, c := range cases {
		s := &IdleSearch{Min: c.min, Max: c.max, PerRound: c.perRound, Rounds: c.rounds}
		err := s.Check()
		if (err == nil) != c.ok {
			t.Errorf("%+v: %v", c, err)
		}
		if err != nil {
			checkField(t, err, c.field)
		}
	}
}

func TestIdleWorthWriting(t *testing.T) {
	t.Parallel()
	failed := errors.New("no connection")
	probed := IdleResult{Probes: []IdleProbe{{Idle: time.Second, Reused: true}}}
	cases := []struct {
		name string
		res  IdleResult
		err  error
		want bool
	}{
		{"found", probed, nil, true},
		{"nothing probed, no error", IdleResult{}, nil, true},
		{"stopped after a probe", probed, context.Canceled, true},
		{"failed before any probe", IdleResult{}, failed, false},
	}
	for _, c := range cases {
		if got := IdleWorthWriting(c.res, c.err); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
