package usage

import (
	"errors"
	"fmt"
	"strings"
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
		{"field", Fieldf("{RTT} %s: too long", "11s"), true, "RTT", "RTT 11s: too long", nil},
		{"wrapped twice keeps the field", Wrap(fmt.Errorf("lab: %w", Fieldf("{MTU} bad"))), true, "MTU", "lab: MTU bad", nil},
		{"two fields, the first is the field", Fieldf("{TLS} and {NoTLS} contradict"), true, "TLS", "TLS and NoTLS contradict", nil},
		{"braces that name no field stay", Fieldf("{RTT} {x} {} {Bad-name}"), true, "RTT", "RTT {x} {} {Bad-name}", nil},
		{"a value is never a field", Fieldf("{Rate} %q", "{MTU}"), true, "Rate", `Rate "{MTU}"`, nil},
		{"wraps its cause", Fieldf("{Mix}: %w", base), true, "Mix", "Mix: boom", base},
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

// TestRendered: the command line's text names each field as it says (its
// flag), inside whatever wraps the usage error, and nothing else changes.
func TestRendered(t *testing.T) {
	t.Parallel()
	flag := func(f string) string {
		return map[string]string{"RTT": "--rtt", "TLS": "--tls", "NoTLS": "--no-tls"}[f]
	}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"one field", Fieldf("{RTT} %s: use a round trip", "-5ms"), "--rtt -5ms: use a round trip"},
		{"wrapped", fmt.Errorf("lab: %w", Fieldf("{TLS} and {NoTLS} contradict {RTT}")), "lab: --tls and --no-tls contradict --rtt"},
		{"the user's value is kept", Fieldf("{RTT} %q", "{RTT}"), `--rtt "{RTT}"`},
		{"a cause naming a field", Fieldf("{RTT}: %w", Namedf("use {TLS}")), "--rtt: use --tls"},
		{"no field", Errorf("{RTT} is text here"), "{RTT} is text here"},
		{"not a usage error", errors.New("x {RTT}"), "x {RTT}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := Rendered(c.err, flag); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
	if Is(Namedf("{RTT} x")) || !strings.Contains(Rendered(fmt.Errorf("keys: %w", Namedf("{RTT} x")), flag), "keys: --rtt x") {
		t.Error("a Named message is rendered but is no usage error")
	}
	var n *Named
	if !errors.As(Fieldf("{TLS} and {NoTLS}"), &n) || fmt.Sprint(n.Fields()) != "[TLS NoTLS]" {
		t.Errorf("Fields of %v, want [TLS NoTLS]", n)
	}
}
