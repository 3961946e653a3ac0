package cli

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestLabFlagsRefusedOnABucket: every flag of the lab given with a real
// target is refused (exit 2, naming it), not ignored; --network among them.
// The endpoint is never reached: the refusal comes first.
func TestLabFlagsRefusedOnABucket(t *testing.T) {
	t.Parallel()
	bucket := []string{"s3://b", "--endpoint", "http://127.0.0.1:1", "--db", ":memory:"}
	cases := []struct {
		cmd  []string
		lab  []string
		want string
	}{
		{[]string{"run"}, []string{"--network", "netns"}, "--network apply to the embedded lab only"},
		{[]string{"run"}, []string{"--rtt", "40ms", "--fault", "reset=1%"}, "--rtt, --fault apply to the embedded lab only"},
		{[]string{"run"}, []string{"--lab-api", "gcs"}, "--lab-api apply"},
		{[]string{"probe"}, []string{"--network", "netstack"}, "--network apply"},
		{[]string{"strategies"}, []string{"--mtu", "9000"}, "--mtu apply"},
		{[]string{"idle-timeout"}, []string{"--network", "netns"}, "--network apply"},
	}
	for _, c := range cases {
		args := slices.Concat(c.cmd, bucket, c.lab)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != ExitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, ExitUsage, c.want)
			}
		})
	}
}

// registeredLabFlags are the flags labFlags.register adds, both ways, and
// lab's --port: the lab's flags.
func registeredLabFlags() map[string]bool {
	names := map[string]bool{"port": true}
	for _, withAPI := range []bool{true, false} {
		fs := pflag.NewFlagSet("lab", pflag.ContinueOnError)
		(&labFlags{}).register(fs, withAPI)
		fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
	}
	return names
}

// TestEveryLabFlagMarked walks every command's flags: each flag of the
// lab (registered by labFlags.register, or saying "lab:" in its usage)
// carries the lab's mark, and only those do. A lab flag added without the
// mark would be silently ignored on a real bucket: this test fails then.
func TestEveryLabFlagMarked(t *testing.T) {
	t.Parallel()
	lab := registeredLabFlags()
	var walk func(*cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			inLabSet := lab[f.Name] && (f.Name != "profile" && f.Name != "limit" || strings.HasPrefix(f.Usage, "lab:")) // runs has a --limit of its own
			labUsage := strings.HasPrefix(f.Usage, "lab:")
			switch {
			case (inLabSet || labUsage) && !isLabFlag(f):
				t.Errorf("%s --%s is the lab's but is not marked (markLab): it would be ignored on a real bucket", c.CommandPath(), f.Name)
			case isLabFlag(f) && !inLabSet:
				t.Errorf("%s --%s is marked as the lab's but labFlags.register does not add it", c.CommandPath(), f.Name)
			case isLabFlag(f) && fieldOf(f) == "":
				t.Errorf("%s --%s is the lab's but sets no field of lab.Settings: its refusal on a real bucket could not name it", c.CommandPath(), f.Name)
			case isLabFlag(f):
				seen++
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	if seen < len(lab) {
		t.Errorf("%d marked flags over every command, want at least the %d lab flags", seen, len(lab))
	}
}

// TestProgressCommandsOutputFlags: every command that prints progress
// takes the same output flags, -q, --json and -o; probe -q was refused.
func TestProgressCommandsOutputFlags(t *testing.T) {
	t.Parallel()
	root := newRootCmd(io.Discard, io.Discard)
	for _, path := range [][]string{{"run"}, {"probe"}, {"strategies"}, {"startup"}, {"idle-timeout"}, {"lab", "check"}} {
		t.Run(strings.Join(path, " "), func(t *testing.T) {
			c, _, err := root.Find(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct{ name, short string }{{"quiet", "q"}, {"json", ""}, {"output", "o"}} {
				got := c.Flags().Lookup(f.name)
				if got == nil || got.Shorthand != f.short {
					t.Errorf("--%s (-%s): %+v", f.name, f.short, got)
				}
			}
		})
	}
	// -q parses on probe: the error is the next one, a bad --conn.
	code, _, stderr := runCLI(t, context.Background(), "probe", "-q", "-o", t.TempDir()+"/out", "--conn", "carrier-pigeon", "--no-save")
	if code != ExitUsage || !strings.Contains(stderr, "--conn") || strings.Contains(stderr, "shorthand") {
		t.Errorf("probe -q: exit %d, stderr %q; want a usage error about --conn", code, stderr)
	}
}
