package probe

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/usage"
)

func TestSettingsOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   Settings
		want Options
		err  string
	}{
		{in: Settings{Count: 50, Pool: 10, Size: "1KiB"}, want: Options{Count: 50, Pool: 10, Size: 1024, Timeout: time.Second}},
		{in: Settings{Count: 5, Pool: 2, Size: "64KiB", Prepare: true}, want: Options{Count: 5, Pool: 2, Size: 64 << 10, Prepare: true, Timeout: time.Second}},
		{in: Settings{Count: 50, Pool: 10, Size: "0"}, err: "Size"},
		{in: Settings{Count: 50, Pool: 10, Size: "big"}, err: "Size"},
		{in: Settings{Count: 0, Pool: 10, Size: "1KiB"}, err: "Count"},
		{in: Settings{Count: 50, Pool: -1, Size: "1KiB"}, err: "Count"},
		{in: Settings{Count: MaxCount + 1, Pool: 10, Size: "1KiB"}, err: "count"},
	}
	for _, c := range cases {
		got, err := c.in.Options(time.Second)
		if c.err != "" {
			// A setting is named by its field, no flag (the command line
			// prints the flag); "count" is a bound of Options, no setting's.
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "--") ||
				c.err != "count" && usage.FieldOf(err) != c.err {
				t.Errorf("%+v: error %v (field %q), want one naming %q", c.in, err, usage.FieldOf(err), c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestFailed(t *testing.T) {
	t.Parallel()
	ok := &Round{Samples: make([]nettrace.Sample, 3)}
	bad := &Round{Samples: make([]nettrace.Sample, 4), Failed: 2}
	if err := Failed([]*Round{ok, ok}); err != nil {
		t.Errorf("no failure: %v", err)
	}
	if err := Failed([]*Round{ok, bad}); err == nil || err.Error() != "2 of 7 requests failed" {
		t.Errorf("failures: %v", err)
	}
}

func TestAddAllNamesTheTarget(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	cases := []struct {
		raws   []string
		opened []string
		err    string
	}{
		{raws: nil, opened: []string{""}, err: "boom"},                                            // none: the lab; one target: the error as it is
		{raws: []string{"s3://a", "s3://a", ""}, opened: []string{"s3://a"}, err: "s3://a: boom"}, // several: named
		{raws: []string{"", "s3://a"}, opened: []string{""}, err: "lab: boom"},
	}
	for _, c := range cases {
		var opened []string
		p := &Prober{}
		err := p.AddAll(context.Background(), c.raws, "pooled", func(raw string) (*target.Env, error) {
			opened = append(opened, raw)
			return nil, boom
		})
		if err == nil || err.Error() != c.err || !errors.Is(err, boom) {
			t.Errorf("%q: error %v, want %q", c.raws, err, c.err)
		}
		if strings.Join(opened, ",") != strings.Join(c.opened, ",") {
			t.Errorf("%q: opened %q, want %q", c.raws, opened, c.opened)
		}
	}
}
