package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunRangedDownload: --download ranged reads each object in ranges,
// a result per object with its parts beside (schema-checked by runCLI);
// with --fault corrupt=100% every body is caught as corrupt, and the
// errors finding names it.
func TestRunRangedDownload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		fault       []string
		wantCorrupt bool
	}{
		{"clean", nil, false},
		{"corrupt", []string{"--fault", "corrupt=100%"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"run", "--json", "-q", "--workload", "throughput", "--sizes", "3MiB", "--size-count", "2",
				"--download", "ranged", "--part-size", "1MiB", "--part-concurrency", "2"}, tc.fault...)
			code, out, errOut := runCLI(t, context.Background(), args...)
			var d struct {
				Options map[string]string `json:"options"`
				Results []struct {
					Op            string           `json:"op"`
					Count         int64            `json:"count"`
					ErrorsByClass map[string]int64 `json:"errors_by_class"`
					Parts         *struct {
						Count, Errors int64
						SizeBytes     int64 `json:"size_bytes"`
						Parallel      int   `json:"parallel"`
					} `json:"parts"`
				} `json:"results"`
				Findings []struct {
					Text string `json:"text"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("exit %d: %v\n%s", code, err, errOut)
			}
			if d.Options["download"] != "ranged" {
				t.Errorf("options download %q", d.Options["download"])
			}
			for _, r := range d.Results {
				if r.Op != "get" {
					continue
				}
				switch {
				case tc.wantCorrupt && (r.ErrorsByClass["corrupt"] != 2 || r.Count != 0):
					t.Errorf("corrupt: count %d errors %v, want 2 corrupt", r.Count, r.ErrorsByClass)
				case !tc.wantCorrupt && (r.Count != 2 || r.Parts == nil || r.Parts.Count != 6 || r.Parts.SizeBytes != 1<<20 || r.Parts.Parallel != 2):
					t.Errorf("clean: count %d parts %+v, want 2 objects of 3 parts", r.Count, r.Parts)
				}
			}
			named := false
			for _, f := range d.Findings {
				named = named || strings.Contains(f.Text, "bytes other than those written")
			}
			if named != tc.wantCorrupt {
				t.Errorf("finding naming corrupt bodies: %v, want %v", named, tc.wantCorrupt)
			}
		})
	}
}
