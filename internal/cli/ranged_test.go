package cli

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestRunRangedSweep: the ranges workload on the lab with a small object
// reads it in one stream, then at the grid's points below its size (a
// representative few), and a finding names the fastest; the document
// matches the schema (runCLI checks it).
func TestRunRangedSweep(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "run", "--json", "-q", "--workload", "ranges", "--sizes", "24MiB", "--size-count", "1", "--no-save")
	var d struct {
		Results []struct {
			Workload string `json:"workload"`
			Op       string `json:"op"`
			Count    int64  `json:"count"`
			Parts    *struct {
				Count     int64 `json:"count"`
				SizeBytes int64 `json:"size_bytes"`
				Parallel  int   `json:"parallel"`
			} `json:"parts"`
		} `json:"results"`
		Findings []struct {
			ID       string             `json:"id"`
			Text     string             `json:"text"`
			Evidence map[string]float64 `json:"evidence"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, errOut)
	}
	var got []string
	for _, r := range d.Results {
		if r.Workload != "ranges" || r.Op != "get" {
			continue
		}
		if r.Count != 1 {
			t.Errorf("a sweep step read %d objects, want 1", r.Count)
		}
		if r.Parts == nil {
			got = append(got, "stream")
			continue
		}
		if want := (24<<20 + r.Parts.SizeBytes - 1) / r.Parts.SizeBytes; r.Parts.Count != want {
			t.Errorf("%d-byte parts: %d parts, want %d", r.Parts.SizeBytes, r.Parts.Count, want)
		}
		got = append(got, fmt.Sprintf("%dMiBx%d", r.Parts.SizeBytes>>20, r.Parts.Parallel))
	}
	if s := strings.Join(got, " "); s != "stream 4MiBx4 4MiBx8 8MiBx4 16MiBx4" {
		t.Errorf("sweep steps %q", s)
	}
	var named bool
	for _, f := range d.Findings {
		if f.ID == "range-sweep-24MiB" {
			named = f.Evidence["part_size_bytes"] > 0 && f.Evidence["stream_mb_per_s"] > 0 && strings.Contains(f.Text, "24MiB objects")
		}
	}
	if !named {
		t.Errorf("no range-sweep-24MiB finding naming the best configuration: %+v", d.Findings)
	}
}

// TestStrategiesRangedDownload: with --download ranged every strategy's
// GET row reads each object in ranges (3 requests for 3 parts), all of
// them checked, and the options say so.
func TestStrategiesRangedDownload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		download string
		wantReq  float64
	}{{"stream", 1}, {"ranged", 3}} {
		code, out, errOut := runCLI(t, context.Background(), "strategies", "--json", "-q", "lab", "--lab-api", "s3", "--rtt", "0", "--no-tls",
			"--size", "3MiB", "--objects", "2", "--download", tc.download, "--part-size", "1MiB", "--part-concurrency", "2", "--no-save")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.download, code, errOut)
		}
		var d struct {
			Options    map[string]string `json:"options"`
			Strategies []struct {
				Strategy  string  `json:"strategy"`
				Op        string  `json:"op"`
				Available bool    `json:"available"`
				Errors    int64   `json:"errors"`
				ReqPerObj float64 `json:"requests_per_object"`
			} `json:"strategies"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		if got, want := d.Options["download"], map[string]string{"ranged": "ranged"}[tc.download]; got != want {
			t.Errorf("%s: options download %q, want %q", tc.download, got, want)
		}
		gets := 0
		for _, r := range d.Strategies {
			if r.Op != "get" || !r.Available {
				continue
			}
			gets++
			if r.Errors != 0 || r.ReqPerObj != tc.wantReq {
				t.Errorf("%s %s: %d errors, %.2f requests per object, want %.0f", tc.download, r.Strategy, r.Errors, r.ReqPerObj, tc.wantReq)
			}
		}
		if gets < 3 {
			t.Errorf("%s: %d GET rows available", tc.download, gets)
		}
	}
}

// TestRunRangedConcurrency: --download ranged applies to the concurrency
// workload's GETs too: each of its objects is read in parts.
func TestRunRangedConcurrency(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, context.Background(), "run", "--json", "-q", "--workload", "concurrency", "--concurrency", "2",
		"--concurrency-size", "3MiB", "--download", "ranged", "--part-size", "1MiB", "--part-concurrency", "2", "--no-save")
	var d struct {
		Results []struct {
			Op    string `json:"op"`
			Count int64  `json:"count"`
			Parts *struct {
				Count int64 `json:"count"`
			} `json:"parts"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, errOut)
	}
	gets := 0
	for _, r := range d.Results {
		if r.Op != "get" {
			continue
		}
		gets++
		if r.Parts == nil || r.Count == 0 || r.Parts.Count != 3*r.Count {
			t.Errorf("concurrency GET: %d objects, parts %+v, want 3 parts each", r.Count, r.Parts)
		}
	}
	if gets != 1 {
		t.Errorf("%d GET steps, want 1", gets)
	}
}
