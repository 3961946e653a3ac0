// Package reporttest holds the renderers' test fixtures and golden-file
// check, shared by the terminal, html and export tests.
package reporttest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Fixture is a fixed document built the way run builds one.
func Fixture() *document.Document {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	step := func(workload, op string, size int64, conc int, base time.Duration, n int, failures int) document.Result {
		r := stats.NewRecorder()
		for i := range n {
			d := base + time.Duration(i%10)*base/10
			s := nettrace.Sample{Seq: i / conc, Start: t0, FirstByte: t0.Add(d), End: t0.Add(2 * d), Size: size, Requests: 1, Reused: i >= conc}
			s.Phases[nettrace.Wait] = d
			s.Phases[nettrace.Recv] = d
			if i < conc {
				s.Phases[nettrace.Connect], s.Phases[nettrace.TLS] = base/2, base/2
				s.FirstByte, s.End = s.FirstByte.Add(base), s.End.Add(base)
			}
			r.Add(&s)
		}
		for range failures {
			r.Add(&nettrace.Sample{Err: "boom", ErrClass: "timeout", Retries: 1})
		}
		sum := r.Summarize(size, time.Second)
		sum.ClientCPU = time.Duration(n+failures) * (100*time.Microsecond + time.Duration(size/1000)*time.Microsecond/50)
		return document.FromSummary(workload, op, size, conc, "pooled", time.Second, sum)
	}
	return &document.Document{
		Envelope: document.Envelope{Schema: document.Schema, RunID: "20261122T120000-abcdef",
			Target:    document.TargetInfo{URL: "s3://objbench", Provider: "s3", Endpoint: "http://127.0.0.1:9000"},
			Lab:       &document.LabInfo{API: "s3", Profile: "cross-region", RTTms: 80, TLS: true},
			StartedAt: "2026-11-22T12:00:00Z", DurationS: 12.5,
			Client: document.ClientInfo{Version: "dev", Go: "go1.26", OS: "linux/amd64", Host: "test", CPUs: 2}},
		Results: []document.Result{
			step("latency", "get", 1024, 1, 80*time.Millisecond, 100, 0),
			step("latency", "put", 0, 1, 90*time.Millisecond, 20, 2),
			step("throughput", "get", 32<<20, 1, 400*time.Millisecond, 10, 0),
			step("concurrency", "put", 32<<20, 5, 900*time.Millisecond, 10, 0),
		},
	}
}

// Golden compares got with testdata/name of the calling test's package,
// rewriting it first under -update.
func Golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n%s", name, got)
	}
}

// ExplainFixture is a small explained run: a client per object (two
// connections, one upload with Expect, one download), with a hostile
// program name.
func ExplainFixture() *document.ExplainDocument {
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

// StartupFixture is a startup document with a skewed sample and spikes.
func StartupFixture() *document.StartupDocument {
	var wall, load []time.Duration
	for i := range 200 {
		w := 1200 + float64(i%17)*3.5 + float64(i%5)
		if i == 77 || i == 150 {
			w = 4000 + float64(i) // spikes, stripped by trimming
		}
		wall, load = append(wall, ms(w)...), append(load, ms(w-40)...)
	}
	var cpu []time.Duration
	for i := range 200 {
		cpu = append(cpu, ms(1045+float64(i%3))...)
	}
	return &document.StartupDocument{
		Envelope: document.Envelope{Schema: document.Schema, RunID: "20261122T120000-abcdef",
			StartedAt: "2026-11-22T12:00:00Z", DurationS: 512.25,
			Client:  document.ClientInfo{Version: "dev", Go: "go1.26", OS: "linux/amd64", Host: "test", CPUs: 2},
			Options: map[string]string{"modules": "1000", "props": "100", "runs": "200", "seed": "1", "extra": "x"},
			Labels:  map[string]string{"env": "local-docker"}},
		Runtime: "node", RuntimeVersion: "v20.20.2", EnvLabel: "local-docker",
		Scenarios: []document.StartupScenario{
			document.StartupScenarioFrom("require", 203, 2, 1, wall, load, "exit status 1: Error: Cannot find module\n    at foo"),
			document.StartupScenarioFrom("regenerate", 5, 5, 0, nil, nil, ""),
			document.StartupScenarioFrom("cpu", 200, 0, 0, cpu, cpu, ""),
		},
	}
}

func ms(vs ...float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = time.Duration(v * float64(time.Millisecond))
	}
	return out
}
