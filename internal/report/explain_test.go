package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
)

// explainFixture is a small explained run: a client per object (two
// connections, one upload with Expect, one download), with a hostile
// program name.
func explainFixture() *document.ExplainDocument {
	env := document.Envelope{Schema: document.Schema, RunID: "20261123T120000-eeeeee", Command: "explain",
		Target: document.TargetInfo{URL: "lab", Provider: "lab"}, Lab: &document.LabInfo{API: "s3", Profile: "cross-region", RTTms: 80, TLS: true},
		StartedAt: "2026-11-23T12:00:00Z", DurationS: 1.5}
	rt := func(kv ...float64) map[string]float64 {
		m := map[string]float64{}
		for i, p := range []string{"connect", "tls", "wait100", "wait"} {
			if kv[i] > 0 {
				m[p] = kv[i]
			}
		}
		return m
	}
	return &document.ExplainDocument{Envelope: env, Explain: document.Explain{
		Program: []string{"python3", "<naive>.py"}, RTTms: 80, WallS: 1.5, StorageS: 0.9, NotStorageS: 0.6, Objects: 2,
		BytesUp: 7168, BytesDown: 7168, Requests: 2, RequestsPerObject: 1, Connections: 2, TLSHandshakes: 2,
		ConnectionsPerObject: 1, TLSHandshakesPerObject: 1, RoundTripsPerObject: 3.5,
		RoundTripsByPhase: map[string]float64{"connect": 1, "tls": 1, "wait100": 0.5, "wait": 1},
		MaxInFlight:       1, MaxOpenConns: 1, ExpectContinue: 1, ExtraHeaders: map[string]int{"x-amz-checksum-crc32": 1},
		Operations: map[string]int{"PutObject": 1, "GetObject": 1}, Protocols: map[string]int{"http/1.1": 2}, CostUSDPer1000Objects: 0.0027,
		Conns: []document.ExplainConn{
			{ID: 1, API: "s3", OpenedS: 0.5, HandshakeRTTs: 2, TLSVersion: "1.3", ALPN: "http/1.1", ClosedS: 0.9, ClosedBy: "client", Requests: []document.ExplainRequest{
				{ID: "1.1", Method: "PUT", Path: "/objbench/k", Operation: "PutObject", Object: true, Status: 200, BytesIn: 7168, ArrivedS: 0.7, FirstByteS: 0.78, DoneS: 0.78,
					ExpectContinue: true, Headers: []string{"expect: 100-continue", "x-amz-checksum-crc32"}, RoundTrips: rt(1, 1, 1, 1)}}},
			{ID: 2, API: "s3", OpenedS: 1.0, HandshakeRTTs: 2, TLSVersion: "1.3", ALPN: "http/1.1", ClosedS: 1.4, ClosedBy: "idle-timeout", Requests: []document.ExplainRequest{
				{ID: "2.1", Method: "GET", Path: "/objbench/k", Operation: "GetObject", Object: true, Status: 200, BytesOut: 7168, ArrivedS: 1.25, FirstByteS: 1.25, DoneS: 1.26,
					IdleBeforeS: 0.05, RoundTrips: rt(1, 1, 0, 1)}}},
		},
		Findings: []document.Finding{{ID: "explain-client-per-object", Severity: "high", Text: "2 objects used 2 connections.", Conns: []int{1}, Requests: []string{"1.1"}}},
		WhatIf:   []document.WhatIf{{ID: "reuse", Text: "one client kept", WallS: 1.3, SaveS: 0.2}, {ID: "no-expect", Text: "no Expect: 100-continue", WallS: 1.42, SaveS: 0.08}},
	}}
}

func TestWriteExplainTextGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteExplain(&buf, explainFixture(), true); err != nil {
		t.Fatal(err)
	}
	golden(t, "explain.txt.golden", buf.Bytes())
}

func TestWriteLabRecord(t *testing.T) {
	t.Parallel()
	full := explainFixture()
	var text bytes.Buffer
	if err := WriteExplainText(&text, full); err != nil {
		t.Fatal(err)
	}
	const note = "objbench lab: the record kept the first requests only; 3 more were served, not recorded\n"
	const none = "objbench lab: no request reached the lab\n"
	empty := explainFixture()
	empty.Explain.Requests = 0
	for _, c := range []struct {
		name    string
		d       *document.ExplainDocument
		dropped int
		want    string
	}{
		{"recorded", full, 0, text.String()},
		{"bound reached", full, 3, note + text.String()},
		{"no request", empty, 0, none},
	} {
		var buf bytes.Buffer
		if err := WriteLabRecord(&buf, c.d, c.dropped); err != nil || buf.String() != c.want {
			t.Errorf("%s: wrote %q (%v), want %q", c.name, buf.String(), err, c.want)
		}
	}
}

func TestWriteExplainHTMLGolden(t *testing.T) {
	t.Parallel()
	d := explainFixture()
	var buf bytes.Buffer
	in := HTMLInput{Title: "objbench report", Generated: "2026-11-23T12:00:00Z",
		Runs: []HTMLRun{{ID: d.RunID, Label: "explain python3", Doc: d}}}
	if err := WriteHTML(&buf, in); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if strings.Contains(html, "<naive>") || !strings.Contains(html, `id="explain"`) || strings.Count(html, `class="mark"`) != 4 {
		t.Errorf("waterfall: want the program name escaped and 4 marks (2 handshakes, 2 requests)")
	}
	golden(t, "explain.html.golden", buf.Bytes())
}

func TestWriteExplainComparison(t *testing.T) {
	t.Parallel()
	a, b := explainFixture(), explainFixture()
	b.Explain.Connections, b.Explain.TLSHandshakes, b.Explain.WallS = 1, 1, 0.9
	c := analysis.Comparison{A: a.RunID, B: "b", Explain: analysis.CompareExplain(a, b)}
	var buf bytes.Buffer
	WriteComparison(&buf, c)
	for _, want := range []string{"connections", "-50%", "better", "round_trips_per_object"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestExplainHeaderNetwork: the header says which path carried the program
// (lab.network), and the fallback's note when there is one.
func TestExplainHeaderNetwork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ network, note, want, notWant string }{
		{"netns", "", "network netns (the program's own kernel TCP on the emulated wire)", "lab: network namespaces"},
		{"netstack", "network namespaces unavailable (operation not permitted): the program reaches the lab through local endpoints",
			"lab: network namespaces unavailable (operation not permitted)", "network netns"},
	} {
		d := explainFixture()
		d.Lab.Network, d.Lab.NetworkNote = tc.network, tc.note
		var buf bytes.Buffer
		if err := WriteExplainText(&buf, d); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.notWant) || !strings.Contains(out, "network "+tc.network) {
			t.Errorf("network %s: header\n%s", tc.network, out[:strings.Index(out, "\nwall")])
		}
	}
}
