package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

var update = flag.Bool("update", false, "rewrite golden files")

// phases builds a phases map from p50s (p99 = p50 unless given).
func phases(p50 map[string]float64, p99 map[string]float64) map[string]document.PhaseDist {
	m := map[string]document.PhaseDist{}
	for _, p := range phaseOrder {
		d := document.PhaseDist{P50: p50[p], P99: p50[p]}
		if v, ok := p99[p]; ok {
			d.P99 = v
		}
		m[p] = d
	}
	return m
}

// getStep is a latency GET of 1 KiB whose first request pays a TCP and a
// TLS handshake of one 40 ms round trip each.
func getStep() document.Result {
	return document.Result{Workload: "latency", Op: "get", SizeBytes: 1024, Concurrency: 1, Strategy: "pooled",
		Count: 1000, RequestsPerOp: 1, WallS: 40, ReusedFraction: 0.999,
		TTFBms: document.Dist{P50: 40, P99: 50}, TotalMs: document.Dist{P50: 40.1, P99: 50},
		PhasesMs: phases(map[string]float64{"wait": 40}, nil),
		FirstRequest: document.Group{Count: 1, TTFBms: document.Dist{P50: 120.5},
			PhasesMs: phases(map[string]float64{"connect": 40.2, "tls": 40.1, "wait": 40}, nil)},
		LaterRequests: document.Group{Count: 999, TTFBms: document.Dist{P50: 40}, ReusedFraction: 1,
			PhasesMs: phases(map[string]float64{"wait": 40}, nil)},
	}
}

func labDoc(results ...document.Result) *document.Document {
	return &document.Document{
		Envelope: document.Envelope{Schema: document.Schema, RunID: "t", Command: "run",
			Target:  document.TargetInfo{URL: "s3://objbench", Provider: "s3"},
			Lab:     &document.LabInfo{API: "s3", Profile: "custom", RTTms: 40, TLS: true},
			Options: map[string]string{"conn": "pooled"}},
		Results: results,
	}
}

func sizeSweep(op string, fixedMs, mbps float64, sizes ...int64) []document.Result {
	var out []document.Result
	for _, s := range sizes {
		total := fixedMs + float64(s)/(mbps*1e6)*1000
		out = append(out, document.Result{Workload: "throughput", Op: op, SizeBytes: s, Concurrency: 1, Count: 10, RequestsPerOp: 1,
			TotalMs: document.Dist{P50: total, P99: total}, WallS: total / 100})
	}
	return out
}

func levels(op string, aggs ...float64) []document.Result {
	var out []document.Result
	for i, a := range aggs {
		c := []int{1, 5, 10, 20}[i]
		out = append(out, document.Result{Workload: "concurrency", Op: op, SizeBytes: 32 << 20, Concurrency: c, Count: int64(2 * c),
			RequestsPerOp: 1, AggregateMBps: a, TotalMs: document.Dist{P50: 32 / a * 1000 * float64(c)}, WallS: 1})
	}
	return out
}

func ids(fs []document.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func find(fs []document.Finding, id string) *document.Finding {
	for i := range fs {
		if fs[i].ID == id {
			return &fs[i]
		}
	}
	return nil
}

// TestFindingsFire builds documents with known facts and checks which
// findings fire and which do not.
func TestFindingsFire(t *testing.T) {
	t.Parallel()
	lowReuse := getStep()
	lowReuse.LaterRequests.ReusedFraction, lowReuse.Reconnects = 0.8, 200
	multipart := getStep()
	multipart.Workload, multipart.Op, multipart.SizeBytes, multipart.RequestsPerOp = "throughput", "put", 32<<20, 6
	tail := getStep()
	tail.TotalMs = document.Dist{P50: 40, P99: 400}
	tail.PhasesMs = phases(map[string]float64{"wait": 40}, map[string]float64{"wait": 390})
	warmFirst := getStep()
	warmFirst.FirstRequest = warmFirst.LaterRequests
	failing := getStep()
	failing.Count, failing.Errors, failing.SilentRetries = 740, 260, 240
	failing.ErrorsByClass = map[string]int64{"reset": 260}
	faulty := labDoc(failing)
	faulty.Options["fault"] = "reset=50%"

	putFailed := getStep()
	putFailed.Op, putFailed.Count, putFailed.Errors = "put", 0, 20
	putFailed.ErrorsByClass = map[string]int64{"timeout": 12, "reset": 8}
	noneRead := getStep()
	noneRead.Count, noneRead.Errors = 0, 0
	putNone := putFailed
	putNone.Errors, putNone.ErrorsByClass = 0, nil

	cases := []struct {
		name     string
		doc      *document.Document
		fire     []string
		silent   []string
		contains map[string]string
	}{
		{"cold vs warm in round trips", labDoc(getStep()), []string{"cold-vs-warm"},
			[]string{"connection-reuse", "requests-per-object", "tail-latency", "errors"},
			map[string]string{"cold-vs-warm": "connect 40.2 and tls 40.1 ms more, 2.0 round trips of 40.0 ms"}},
		{"no cold cost when the first request is warm", labDoc(warmFirst), nil, []string{"cold-vs-warm"}, nil},
		{"reuse below 95%", labDoc(lowReuse), []string{"connection-reuse"}, nil,
			map[string]string{"connection-reuse": "only 80% of later requests reused a connection (200 reconnects)"}},
		{"fresh connections are not a reuse problem", func() *document.Document {
			d := labDoc(lowReuse)
			d.Options["conn"] = "fresh"
			return d
		}(), nil, []string{"connection-reuse"}, nil},
		{"multipart requests and their cost", labDoc(multipart), []string{"requests-per-object"}, nil,
			map[string]string{"requests-per-object": "6.0 HTTP requests per object (a multipart upload: initiate, 4 parts, complete)"}},
		{"tail in the wait phase", labDoc(tail), []string{"tail-latency"}, nil,
			map[string]string{"tail-latency": "p99 is 10.0x the p50 (400 ms against 40.0); the tail sits in wait"}},
		{"size sweep: round trips below the crossover", labDoc(sizeSweep("get", 10, 100, 16<<10, 256<<10, 1<<20, 8<<20)...),
			[]string{"size-fit-get"}, []string{"size-fit-put"}, map[string]string{"size-fit-get": "fixed 10.0 ms plus size at 100 MB/s"}},
		{"size sweep: bandwidth only", labDoc(sizeSweep("put", 0, 100, 16<<10, 256<<10, 1<<20)...),
			[]string{"size-fit-put"}, nil, map[string]string{"size-fit-put": "bandwidth limits every size"}},
		{"concurrency plateau", labDoc(levels("put", 100, 45, 45, 63)...), []string{"concurrency-plateau-put"}, nil,
			map[string]string{"concurrency-plateau-put": "stops growing at c=1"}},
		{"concurrency that scales", labDoc(levels("get", 100, 300, 600, 900)...), nil, []string{"concurrency-plateau-get"}, nil},
		{"a read step after uploads that all failed", labDoc(putFailed, noneRead, getStep()), []string{"nothing-read", "errors"}, []string{"step-too-short", "nothing-measured"},
			map[string]string{"nothing-read": "get 1KiB (step 2) made no request: every upload of the step before each failed (20: reset 8, timeout 12)"}},
		{"a read step after a write step that stored nothing", labDoc(getStep(), putNone, noneRead), []string{"nothing-read", "step-too-short"}, []string{"errors", "nothing-measured"},
			map[string]string{"nothing-read": "the upload step before each ended before any upload completed", "step-too-short": "put 1KiB completed no request"}},
		{"a step that ended before its first response", labDoc(getStep(), noneRead), []string{"step-too-short"}, []string{"nothing-read", "nothing-measured"},
			map[string]string{"step-too-short": "get 1KiB (step 2) completed no request: each ended before its first response (a round trip is 40.0 ms here)"}},
		{"no step completed a request", labDoc(putNone, noneRead), []string{"nothing-measured"}, []string{"nothing-read", "step-too-short"},
			map[string]string{"nothing-measured": "no step completed a request"}},
		{"a mix that drew no HEAD", labDoc(func() (rs []document.Result) {
			for _, op := range []string{"get", "put", "head"} {
				r := getStep()
				r.Workload, r.Op = "mixed", op
				if op == "head" {
					r.Count = 0
				}
				rs = append(rs, r)
			}
			return rs
		}()...), nil, []string{"nothing-read", "step-too-short", "nothing-measured"}, nil},
		{"a read step that read", labDoc(putFailed, getStep()), []string{"errors"}, []string{"nothing-read", "step-too-short", "nothing-measured"}, nil},
		{"errors, injected faults and silent retries", faulty, []string{"errors"}, nil,
			map[string]string{"errors": "GETs: the lab reset 50% of requests, 26.0% failed, 240 were retried silently"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			Annotate(c.doc, DefaultPrices())
			got := c.doc.Findings
			for _, id := range c.fire {
				if find(got, id) == nil {
					t.Errorf("%s did not fire; got %v", id, ids(got))
				}
			}
			for _, id := range c.silent {
				if f := find(got, id); f != nil {
					t.Errorf("%s fired: %s", id, f.Text)
				}
			}
			for id, want := range c.contains {
				if f := find(got, id); f != nil && !strings.Contains(f.Text, want) {
					t.Errorf("%s: %q lacks %q", id, f.Text, want)
				}
			}
		})
	}
}

func TestFindingsRanked(t *testing.T) {
	t.Parallel()
	failing := getStep()
	failing.Count, failing.Errors = 900, 100
	d := labDoc(failing)
	Annotate(d, DefaultPrices())
	if len(d.Findings) < 2 || d.Findings[0].ID != "errors" || d.Findings[0].Severity != High {
		t.Errorf("high-severity errors not first: %v", ids(d.Findings))
	}
	cw := find(d.Findings, "cold-vs-warm")
	if cw == nil || math.Abs(cw.Evidence["round_trips"]-2) > 0.05 {
		t.Errorf("cold-vs-warm evidence %v", cw)
	}
}

// TestCostExact: a lab run of 1000 GETs of 1 KiB and 20 PUTs on S3 prices
// costs $0.0004 + $0.0001 in requests, to the cent and below.
func TestCostExact(t *testing.T) {
	t.Parallel()
	put := document.Result{Workload: "latency", Op: "put", SizeBytes: 0, Count: 20, RequestsPerOp: 1, WallS: 1}
	d := labDoc(getStep(), put)
	d.Results[0].WallS = 9
	c := RunCost(d, DefaultPrices())
	if c == nil {
		t.Fatal("no cost for an S3 lab run")
	}
	if c.Requests != 1020 || c.RequestsUSD != 0.0005 || c.ByOp[0].RequestsUSD != 0.0004 || c.ByOp[1].RequestsUSD != 0.0001 {
		t.Errorf("requests %d cost %v (by op %+v), want 1020 requests $0.0005 = get $0.0004 + put $0.0001", c.Requests, c.RequestsUSD, c.ByOp)
	}
	// 1000 x 1024 bytes out at $0.09 per 10^9 bytes: $0.00009216.
	if c.EgressBytes != 1_024_000 || c.EgressUSD != 0.000092 || c.TotalUSD != 0.000592 {
		t.Errorf("egress %d bytes $%v, total $%v", c.EgressBytes, c.EgressUSD, c.TotalUSD)
	}
	// A million objects of this mix (1000 get : 20 put): ($0.0005 + $0.00009216) / 1020 x 10^6.
	if want := math.Round(0.00059216/1020*1e6*1e6) / 1e6; c.PerMillionObjectsUSD != want {
		t.Errorf("per million %v, want %v", c.PerMillionObjectsUSD, want)
	}
	if want := 0.00059216 / 10 * 3600; math.Abs(c.PerHourUSD-want) > 1e-6 {
		t.Errorf("per hour %v, want %v", c.PerHourUSD, want)
	}
	if got := FormatUSD(c.RequestsUSD); got != "$0.0005" {
		t.Errorf("FormatUSD = %s", got)
	}
	gcs := labDoc(getStep())
	gcs.Lab.API = "gcs"
	if c := RunCost(gcs, DefaultPrices()); c == nil || c.Provider != "gcs" || c.EgressUSD != math.Round(1_024_000/float64(1<<30)*0.12*1e6)/1e6 {
		t.Errorf("gcs cost %+v: egress per GiB", c)
	}
}

func TestLoadPrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := map[string]string{
		"missing":          filepath.Join(dir, "nope.json"),
		"bad json":         write("bad.json", `{"s3": {`),
		"bad yaml":         write("bad.yaml", "s3: [\n"),
		"negative price":   write("neg.json", `{"s3": {"per_1000_requests": {"get": -1}}}`),
		"negative egress":  write("nege.yaml", "gcs:\n  egress_per_gb: -0.1\n"),
		"unknown provider": write("prov.json", `{"r2": {"egress_per_gb": 0}}`),
		"unknown op":       write("op.json", `{"s3": {"per_1000_requests": {"teleport": 1}}}`),
	}
	for name, path := range bad {
		if _, err := LoadPrices(path); !errors.Is(err, ErrPrices) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line wrapping ErrPrices", name, err)
		}
	}
	p, err := LoadPrices(write("ok.yaml", "s3:\n  egress_per_gb: 0\n  per_1000_requests:\n    get: 0.001\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s3 := p["s3"]; s3.EgressPerGB != 0 || s3.PerThousand["get"] != 0.001 || s3.PerThousand["put"] != 0.005 || s3.Date == "" {
		t.Errorf("override not laid over the shipped table: %+v", s3)
	}
	for key, tb := range DefaultPrices() {
		if tb.Source == "" || tb.Date == "" || tb.GBBytes <= 0 {
			t.Errorf("%s: shipped table lacks source, date or GB size", key)
		}
	}
}

// TestFindingsGolden keeps the sentences of a document where every run
// rule fires (go test ./internal/analysis -update to refresh).
func TestFindingsGolden(t *testing.T) {
	t.Parallel()
	multipart := getStep()
	multipart.Workload, multipart.Op, multipart.SizeBytes, multipart.RequestsPerOp = "throughput", "put", 32<<20, 6
	low := getStep()
	low.Op, low.TotalMs = "head", document.Dist{P50: 40, P99: 400}
	low.PhasesMs = phases(map[string]float64{"wait": 40}, map[string]float64{"wait": 390})
	low.LaterRequests.ReusedFraction, low.Reconnects, low.Errors, low.SilentRetries = 0.5, 500, 10, 5
	low.ErrorsByClass = map[string]int64{"reset": 10}
	rs := []document.Result{getStep(), low, multipart}
	rs = append(rs, sizeSweep("get", 10, 100, 16<<10, 256<<10, 1<<20, 8<<20)...)
	rs = append(rs, levels("put", 100, 45, 45, 63)...)
	d := labDoc(rs...)
	d.Options["fault"] = "reset=2%"
	Annotate(d, DefaultPrices())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"findings": d.Findings, "cost": d.Cost}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "findings.golden.json")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("findings differ from the golden file (run with -update after checking):\n%s", buf.Bytes())
	}
}
