package usage

import (
	"errors"
	"fmt"
	"testing"
)

func TestError(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	cases := []struct {
		name      string
		err       error
		usage     bool
		field     string
		text      string
		unwrapsTo error
	}{
		{"nil stays nil", Wrap(nil), false, "", "", nil},
		{"wrapped", Wrap(base), true, "", "boom", base},
		{"field", Fieldf("RTT", "--rtt %s: too long", "11s"), true, "RTT", "--rtt 11s: too long", nil},
		{"wrapped twice keeps the field", Wrap(fmt.Errorf("lab: %w", Fieldf("MTU", "bad"))), true, "MTU", "lab: bad", nil},
		{"a plain error is none", base, false, "", "boom", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if Is(c.err) != c.usage || FieldOf(c.err) != c.field {
				t.Errorf("Is %v field %q; want %v %q", Is(c.err), FieldOf(c.err), c.usage, c.field)
			}
			if c.err != nil && c.err.Error() != c.text {
				t.Errorf("text %q, want %q", c.err.Error(), c.text)
			}
			if c.unwrapsTo != nil && !errors.Is(c.err, c.unwrapsTo) {
				t.Error("does not unwrap to its cause")
			}
		})
	}
}
