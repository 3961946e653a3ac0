package terminal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
)

// listed makes a run as results.List gives it: labels stored as
// json.Marshal writes them.
func listed(id, target string, dur float64, interrupted bool, labels map[string]string) results.Listed {
	js, _ := json.Marshal(labels)
	return results.Listed{ID: id, Command: "run", TargetURL: target, DurationS: dur, Interrupted: interrupted,
		StartedAt: time.Date(2026, 11, 23, 10, 4, 5, 0, time.UTC), LabelsJSON: string(js)}
}

func TestWriteRuns(t *testing.T) {
	t.Parallel()
	runs := []results.Listed{listed("r1", "s3://b", 1.5, false, nil)}
	for _, c := range []struct {
		name    string
		runs    []results.Listed
		jsonOut bool
		want    string
	}{
		{"table", runs, false, "RUN "},
		{"none", nil, false, "no saved runs match\n"},
		{"json", runs, true, `{"run_id":"r1"`},
		{"json of none", nil, true, `"runs": []`},
	} {
		var buf bytes.Buffer
		if err := WriteRuns(&buf, c.runs, c.jsonOut); err != nil || !strings.Contains(buf.String(), c.want) {
			t.Errorf("%s: wrote %q (%v), want %q in it", c.name, buf.String(), err, c.want)
		}
	}
}

// TestRunsJSONMatchesEncodingJSON: the hand-appended rows of `runs --json`
// decode to what encoding/json would have written, escapes included.
func TestRunsJSONMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		run  results.Listed
	}{
		{"plain", listed("20261123T100405-aaaaaa", "s3://bucket", 12.5, false, map[string]string{"env": "a", "b": "c"})},
		{"no labels", listed("20261123T100405-bbbbbb", "gs://b", 0, false, nil)},
		{"empty labels", listed("id", "gs://b", 0.25, true, map[string]string{})},
		{"escapes", listed(`id"<x>&`, "az://acct/c\u00e9\n", 1e-7, false, map[string]string{`k"ey`: `v\al<ue>`, "é": "\t"})},
		{"commas and colons in labels", listed("id", "s3://b", 3e21, false, map[string]string{"a:b": "c,d", `x":"y`: "z"})},
		{"tiny and huge", listed("id", "s3://b", math.SmallestNonzeroFloat64, false, map[string]string{"k": ""})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			if err := WriteRunsJSON(w, []results.Listed{tc.run, tc.run}); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			var got struct {
				Schema string
				Runs   []json.RawMessage
			}
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil || len(got.Runs) != 2 || got.Schema != document.Schema {
				t.Fatalf("not JSON with two runs: %v\n%s", err, buf.String())
			}
			r := tc.run
			want, _ := json.Marshal(struct {
				RunID       string            `json:"run_id"`
				StartedAt   string            `json:"started_at"`
				Command     string            `json:"command"`
				Target      string            `json:"target"`
				Labels      map[string]string `json:"labels"`
				DurationS   float64           `json:"duration_s"`
				Interrupted bool              `json:"interrupted,omitempty"`
			}{r.ID, r.StartedAt.UTC().Format(time.RFC3339), r.Command, r.TargetURL, nonNil(r.Labels()), r.DurationS, r.Interrupted})
			if string(got.Runs[0]) != string(want) {
				t.Errorf("row\n got %s\nwant %s", got.Runs[0], want)
			}
		})
	}
}

// TestLabelsText: the text of stored labels without a map is what
// FormatLabels makes of the decoded map.
func TestLabelsText(t *testing.T) {
	for _, labels := range []map[string]string{
		nil, {}, {"env": "a"}, {"z": "1", "a": "2", "m": "3"}, {"a:b": "c,d"}, {`q"uote`: "v"}, {"html": "<b>"}, {"k": ""},
	} {
		r := listed("id", "s3://b", 1, false, labels)
		if got, want := labelsText(r), analysis.FormatLabels(labels); got != want {
			t.Errorf("labels %v (%s): %q, want %q", labels, r.LabelsJSON, got, want)
		}
	}
}

// TestRunsTableAligned: every column starts at the same place on every
// line, whatever the widths of the cells.
func TestRunsTableAligned(t *testing.T) {
	runs := []results.Listed{
		listed("20261123T100405-aaaaaa", "s3://a-very-long-bucket-name/prefix", 1234.5, true, map[string]string{"env": "é"}),
		listed("short", "gs://b", 1, false, nil),
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	WriteRunsTable(w, runs)
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	col := func(line, cell string) int { return len([]rune(line[:strings.Index(line, cell)])) }
	day := runs[0].StartedAt.Local().Format("2006-01-02")
	for _, c := range []struct{ header, a, b string }{
		{"STARTED", day, day}, {"TARGET", "s3://a-very", "gs://b"},
		{"DURATION", "1234.5s (interrupted)", "1.0s"}, {"LABELS", "env=é", ""},
	} {
		h := col(lines[0], c.header)
		if got := col(lines[1], c.a); got != h {
			t.Errorf("%s: row 1 at %d, header at %d\n%s", c.header, got, h, buf.String())
		}
		if c.b != "" {
			if got := col(lines[2], c.b); got != h {
				t.Errorf("%s: row 2 at %d, header at %d\n%s", c.header, got, h, buf.String())
			}
		}
	}
}
