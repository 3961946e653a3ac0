package cli

import (
	"context"
	"strings"
	"testing"
)

// TestLimitFlag: --limit is refused where it is wrong, on each command
// that takes the lab's flags, with exit 2, the flag's name and an example.
func TestLimitFlag(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"lab", "--limit", "s3:get=fast"},
		{"lab", "exec", "--limit", "gcs:partition=off", "--", "true"},
		{"explain", "--limit", "dropbox", "--", "true"},
		{"run", "--limit", "azure:get=5/s", "--db", ":memory:"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != ExitUsage || !strings.Contains(stderr, "objbench: --limit ") || !strings.Contains(stderr, "e.g. s3:get=200/s") {
				t.Errorf("exit %d, stderr %q; want %d, --limit named, an example", code, stderr, ExitUsage)
			}
		})
	}
}
