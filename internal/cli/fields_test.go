package cli

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// fieldToken is how a domain package names a setting in a message
// (usage.Fieldf, usage.Namedf): its field in braces.
var fieldToken = regexp.MustCompile(`\{([A-Z][A-Za-z0-9_]*)\}`)

// domainFields are the fields named in the string literals of the
// packages whose settings errors the command line prints, by file.
func domainFields(t *testing.T) map[string][]string {
	t.Helper()
	fields := map[string][]string{}
	for _, dir := range []string{"../lab", "../load", "../target", "../shard", "../probe", "../session", "../labcheck", "../journal", "../merge"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v (no Go files)", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range fieldToken.FindAllStringSubmatch(s, -1) {
					fields[m[1]] = append(fields[m[1]], filepath.Base(file))
				}
				return true
			})
		}
	}
	return fields
}

// flagFields walks every command: the flags that set each field (the
// marks nameFields derives from the flags' bindings), refusing a field two
// flags of one command set (which would the command line print?).
func flagFields(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		byField := map[string]string{}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			field := fieldOf(f)
			if field == "" {
				return
			}
			if other, ok := byField[field]; ok && other != f.Name {
				t.Errorf("%s: --%s and --%s both set the field %s", c.CommandPath(), other, f.Name, field)
			}
			byField[field] = f.Name
			if !slices.Contains(out[field], "--"+f.Name) {
				out[field] = append(out[field], "--"+f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	return out
}

// TestEveryFieldHasAFlag: every setting a domain package names in an
// error is set by a flag of some command, marked where it is registered,
// so the command line prints that flag. A new field named in an error
// with no flag bound to it (or a flag no longer bound to its field) fails
// here, as it would print the bare field name to the user.
func TestEveryFieldHasAFlag(t *testing.T) {
	t.Parallel()
	named, flags := domainFields(t), flagFields(t)
	for _, want := range []string{"RTT", "Jitter", "MTU", "Interval", "Sizes", "Timeout", "StartAt", "RunID", "Min", "Ops"} {
		if named[want] == nil {
			t.Errorf("the scan missed the field %s: is it still named {%s}?", want, want)
		}
	}
	for field, files := range named {
		if flags[field] == nil {
			t.Errorf("%s names the field %s, but no command has a flag bound to it", strings.Join(slices.Compact(files), ", "), field)
		}
	}
	// The marks follow the bindings: these flags set these fields.
	for field, flag := range map[string]string{"RTT": "--rtt", "Jitter": "--jitter", "MTU": "--mtu", "Levels": "--concurrency",
		"Workloads": "--workload", "Faults": "--fault", "KeepSamples": "--keep-samples", "API": "--lab-api", "PerRound": "--probes", "Sizes": "--sizes"} {
		if !slices.Contains(flags[field], flag) {
			t.Errorf("field %s: flags %v, want %s among them", field, flags[field], flag)
		}
	}
}

// TestSettingsErrorsNameFlags: a domain error names the field; what the
// user reads names the flag, as it always did, with exit 2 (a keys file
// that cannot be read is no usage error: exit 1, and still its flag).
func TestSettingsErrorsNameFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--interval", "1ms"}, ExitUsage, "objbench: --interval must be at least 10ms, got 1ms (see --help)"},
		{[]string{"run", "--step", "1s"}, ExitUsage, "objbench: --latency-from, --max-late and --step need --rate (see --help)"},
		{[]string{"run", "--rate", "100,200"}, ExitUsage, `objbench: --rate: steps "100,200" need --step, the time at each rate, e.g. --step 30s (see --help)`},
		{[]string{"run", "--latency-concurrency", "0"}, ExitUsage, "objbench: --latency-concurrency must be a positive count, got 0 (see --help)"},
		{[]string{"run", "--concurrency", "a"}, ExitUsage, `objbench: --concurrency: bad count "a"`},
		{[]string{"run", "--sweep-parallel", "4"}, ExitUsage, "objbench: --sweep-part-sizes and --sweep-parallel set the grid of --workload ranges, which this run does not include (see --help)"},
		{[]string{"run", "--workload", "ranges", "--sweep-part-sizes", "1KiB"}, ExitUsage, "objbench: --sweep-part-sizes: 1KiB is below the smallest part, 64KiB (see --help)"},
		{[]string{"run", "--workload", "ranges", "--sweep-parallel", "300"}, ExitUsage, "objbench: --sweep-parallel: 300 parts at a time: use 1 to 256 (see --help)"},
		{[]string{"run", "--workload", "mixed", "--key-dist", "zipf:0.5"}, ExitUsage, `objbench: --key-dist: zipf exponent "0.5"`},
		{[]string{"run", "gs://bkt", "--endpoint", "http://127.0.0.1:1", "--upload", "multipart", "--db", ":memory:"}, ExitUsage, "objbench: --upload multipart is for S3 and Azure; gs:// has auto, single and resumable (see --help)"},
		{[]string{"run", "--timeout", "0", "--db", ":memory:"}, ExitUsage, "objbench: --timeout must be positive (see --help)"},
		{[]string{"run", "--part-size", "0", "--db", ":memory:"}, ExitUsage, `objbench: --part-size "0": use a size such as 8MiB (see --help)`},
		{[]string{"run", "--lab-api", "ftp", "--db", ":memory:"}, ExitUsage, `objbench: --lab-api "ftp": use s3, gcs or azure (see --help)`},
		{[]string{"run", "lab", "--endpoint", "http://127.0.0.1:1", "--db", ":memory:"}, ExitUsage, "objbench: --endpoint needs a TARGET such as s3://bucket"},
		{[]string{"run", "--rtt", "-5ms", "--db", ":memory:"}, ExitUsage, "objbench: --rtt -5ms: use a round trip from 0 to 10s (see --help)"},
		{[]string{"run", "--jitter", "11s", "--db", ":memory:"}, ExitUsage, "objbench: --jitter 11s: use a jitter from 0 to 10s (see --help)"},
		{[]string{"run", "--send-buffer", "2GiB", "--db", ":memory:"}, ExitUsage, `objbench: --send-buffer "2GiB": use a size from 4KiB to 1GiB (see --help)`},
		{[]string{"run", "--idle-timeout", "0", "--db", ":memory:"}, ExitUsage, "objbench: --service-time must not be negative and --idle-timeout must be positive (see --help)"},
		{[]string{"run", "--tls", "--no-tls", "--db", ":memory:"}, ExitUsage, "objbench: --tls and --no-tls contradict each other (see --help)"},
		{[]string{"run", "--shards", "3", "--db", ":memory:"}, ExitUsage, "objbench: --shards 3 needs a shard index: --shard I/3, or an engine's"},
		{[]string{"run", "--shard", "0/2", "--db", ":memory:"}, ExitUsage, "pass --run-id ID to every shard"},
		{[]string{"run", "--shard", "0/1", "--run-id", "a/b", "--db", ":memory:"}, ExitUsage, `objbench: --run-id "a/b": use letters`},
		{[]string{"run", "--keep-samples", "-1", "--db", ":memory:"}, ExitUsage, "objbench: --keep-samples must not be negative (see --help)"},
		{[]string{"run", "--results-every", "-1s", "--db", ":memory:"}, ExitUsage, "objbench: --results-every must not be negative, got -1s (see --help)"},
		{[]string{"strategies", "--keep-samples", "-3", "--db", ":memory:"}, ExitUsage, "objbench: --keep-samples must not be negative (see --help)"},
		{[]string{"strategies", "--objects", "0", "--db", ":memory:"}, ExitUsage, "objbench: --objects and --parallel must be positive (see --help)"},
		{[]string{"strategies", "--size", "huge", "--db", ":memory:"}, ExitUsage, `objbench: --size: bad size "huge"`},
		{[]string{"strategies", "--start-in", "5s", "--db", ":memory:"}, ExitUsage, "objbench: --results-to, --start-at and --start-in are for run; merge reads run's shards only (see --help)"},
		{[]string{"strategies", "--keys-from", filepath.Join(os.TempDir(), "objbench-no-such-keys"), "--db", ":memory:"}, ExitFailure, "objbench: --keys-from: open "},
		{[]string{"probe", "--count", "0", "--db", ":memory:"}, ExitUsage, "objbench: --count and --pool must be positive (see --help)"},
		{[]string{"probe", "--size", "big", "--db", ":memory:"}, ExitUsage, `objbench: --size "big": use a size such as 1KiB (see --help)`},
		{[]string{"idle-timeout", "--probes", "1"}, ExitUsage, "objbench: --probes must be 2-64 and --rounds 1-10 (see --help)"},
		{[]string{"merge", "--expect", "-1", "x"}, ExitUsage, "objbench: --expect must be a positive shard count, got -1 (see --help)"},
		{[]string{"lab", "check", "--samples", "0"}, ExitUsage, "objbench: --samples must be positive (see --help)"},
		{[]string{"lab", "check", "--express"}, ExitUsage, "objbench: lab check proves the link model, not a bucket's class: --express applies to lab, run, lab exec and explain (see --help)"},
		{[]string{"lab", "--port", "70000"}, ExitUsage, "objbench: --port 70000: use 1-65535, or 0 for free ports (see --help)"},
		{[]string{"lab", "--profile", "x.json", "cross-region"}, ExitUsage, "objbench: a named lab profile and --profile FILE contradict each other: give one (see --help)"},
		{[]string{"explain", "--mtu", "100", "--", "true"}, ExitUsage, "objbench: --mtu 100: use 576 (the IPv4 minimum) to 65535 (see --help)"},
		// Checked where the settings become a config, not first at the
		// lab's start: the profile's jitter under a given round trip.
		{[]string{"lab", "exec", "--rtt", "1ms", "home-wifi", "--", "true"}, ExitUsage, "objbench: lab link: jitter 5ms larger than the round trip 1ms (see --help)"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, context.Background(), c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
}
