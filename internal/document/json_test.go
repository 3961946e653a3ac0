package document

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestEncodeCleansOnce(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 11, 23, 12, 0, 0, 123, time.UTC)
	d := &Document{Envelope: NewEnvelope("run", "R1", started), Results: []Result{{TotalMs: Dist{P50: math.NaN(), P99: math.Inf(1)}}}}
	d.Target = TargetInfo{URL: "s3://b", Provider: "s3"}
	b, err := Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(d.Results[0].TotalMs.P50) {
		t.Error("Encode changed the document")
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if string(got["command"]) != `"run"` || string(got["schema"]) != `"objbench/v1"` || !strings.Contains(string(got["results"]), `"p50": 0`) {
		t.Errorf("encoded %s", b)
	}
	// The envelope comes first, in the documented order.
	order := []string{`"schema"`, `"run_id"`, `"command"`, `"target"`, `"started_at"`, `"duration_s"`, `"client"`, `"results"`}
	last := -1
	for _, k := range order {
		i := strings.Index(string(b), k)
		if i < last {
			t.Errorf("%s out of order in %s", k, b)
		}
		last = i
	}
	if got := d.Started(); !got.Equal(started) {
		t.Errorf("Started %v, want the nanosecond start %v", got, started)
	}
	s := &StartupDocument{Envelope: Envelope{StartedAt: "2026-11-23T12:00:00Z"}}
	if got := s.Started(); !got.Equal(started.Truncate(time.Second)) {
		t.Errorf("decoded Started %v", got)
	}
}

func TestEncodeRounds(t *testing.T) {
	t.Parallel()
	one := &Document{Envelope: Envelope{Schema: Schema, RunID: "a"}}
	two := &Document{Envelope: Envelope{Schema: Schema, RunID: "b"}}
	b, err := EncodeRounds([]*Document{one})
	if err != nil || strings.Contains(string(b), "probes") {
		t.Fatalf("one round: %s %v, want the document itself", b, err)
	}
	b, err = EncodeRounds([]*Document{one, two})
	var got struct {
		Schema string     `json:"schema"`
		Probes []Document `json:"probes"`
	}
	if err != nil || json.Unmarshal(b, &got) != nil || got.Schema != Schema || len(got.Probes) != 2 || got.Probes[1].RunID != "b" {
		t.Fatalf("two rounds: %s %v", b, err)
	}
}
