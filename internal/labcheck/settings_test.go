package labcheck

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/usage"
)

// TestCheckSettings: lab check refuses no samples, settings the lab
// refuses, and a directory bucket, in that order, each a usage error
// naming its field; anything else passes.
func TestCheckSettings(t *testing.T) {
	t.Parallel()
	rtt := -5 * time.Millisecond
	badRTT := func(s *lab.Settings) { s.RTT = &rtt }
	express := func(s *lab.Settings) { s.Express = true }
	both := func(s *lab.Settings) { badRTT(s); express(s) }
	for _, c := range []struct {
		name    string
		set     func(*lab.Settings) // on the command line's defaults
		profile string
		samples int
		field   string // the field a usage error names; "" none
		err     string // "" no error
	}{
		{name: "defaults", samples: 5},
		{name: "a profile", profile: "cross-region", samples: 1},
		{name: "no samples", samples: 0, field: "Samples", err: "Samples must be positive"},
		{name: "no samples before the settings", set: both, samples: -1, field: "Samples", err: "Samples must be positive"},
		{name: "a setting the lab refuses", set: badRTT, samples: 5, field: "RTT", err: "RTT -5ms"},
		{name: "the lab's settings before express", set: both, samples: 5, field: "RTT", err: "RTT -5ms"},
		{name: "express", set: express, samples: 5, field: "Express",
			err: "lab check proves the link model, not a bucket's class: Express applies to lab, run, lab exec and explain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// the command line's defaults for the lab's flags
			s := lab.Settings{API: "s3", TLSVersion: "1.3", IdleTimeout: 20 * time.Second, MTU: 1500,
				DNSTTL: 5 * time.Second, RecvBuffer: "6MiB", SendBuffer: "4MiB"}
			if c.set != nil {
				c.set(&s)
			}
			err := CheckSettings(s, c.profile, c.samples)
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !usage.Is(err) || usage.FieldOf(err) != c.field || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("err %v (field %q), want %q (field %q)", err, usage.FieldOf(err), c.err, c.field)
			}
		})
	}
}
