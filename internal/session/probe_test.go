package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/target"
	"github.com/objbench/objbench/internal/usage"
)

// probeConfig is a probe session on the lab (each raw target its own
// lab, opened persistent as probe does), counting the targets opened.
func probeConfig(t *testing.T, db string, opened *int) ProbeConfig {
	return ProbeConfig{Strategy: nettrace.Pooled, Labels: map[string]string{"fn": "test"}, KeepSamples: 100, DB: db,
		Open: func(string) (*target.Env, error) {
			*opened++
			env, err := target.Open(context.Background(), target.Config{URL: "lab", LabAPI: "s3", Timeout: 30 * time.Second, Persistent: true})
			return env, err // the Prober closes it
		},
		Stderr: &bytes.Buffer{}, Notify: func(line string) { t.Errorf("notified: %s", line) }}
}

// TestProbe: a probe round on each target (none given: the lab; one
// given twice: opened once), every request counted, the document labelled
// and priced, and stored with as many requests as KeepSamples says
// unless NoSave.
func TestProbe(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // no traces from the test's environment
	o, err := probe.Settings{Count: 5, Pool: 2, Size: "1KiB"}.Options(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		targets []string
		keep    int
		noSave  bool
		opened  int
		samples int64 // stored per round; -1: nothing stored
	}{
		{"the lab", nil, 100, false, 1, 5},
		{"two targets, one given twice", []string{"lab", "lab:local", "lab"}, 100, false, 2, 5},
		{"keep 2", nil, 2, false, 1, 2},
		{"no save", nil, 100, true, 1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "results.db")
			opened := 0
			cfg := probeConfig(t, db, &opened)
			cfg.Targets, cfg.KeepSamples, cfg.NoSave = c.targets, c.keep, c.noSave
			out, err := Probe(context.Background(), cfg, o, analysis.DefaultPrices())
			if err != nil || out.Err != nil {
				t.Fatalf("probe: %v, %v", err, out.Err)
			}
			if opened != c.opened || len(out.Docs) != c.opened || len(out.Rounds) != c.opened {
				t.Fatalf("%d targets opened, %d documents, %d rounds; want %d", opened, len(out.Docs), len(out.Rounds), c.opened)
			}
			for _, d := range out.Docs {
				if d.Command != "probe" || len(d.Results) != 1 || d.Results[0].Count != 5 || d.Results[0].Errors != 0 || d.Labels["fn"] != "test" || d.Cost == nil {
					t.Errorf("document: command %q, labels %v, priced %t, results %d", d.Command, d.Labels, d.Cost != nil, len(d.Results))
					continue
				}
				if c.samples < 0 {
					continue
				}
				if _, n := stored(t, db, d.RunID); n != c.samples {
					t.Errorf("round %s: %d samples stored, want %d", d.RunID, n, c.samples)
				}
			}
			if _, err := os.Stat(db); c.samples < 0 && err == nil {
				t.Error("a round was stored with NoSave")
			}
			if err := probe.Failed(out.Rounds); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestProbeOpenFails: a session that cannot open is the error itself: a
// target that does not open (named when there are several), or a
// collector's URL that is not one, a usage error found before any target
// is opened.
func TestProbeOpenFails(t *testing.T) {
	errNoBucket := errors.New("no such bucket")
	for _, c := range []struct {
		name    string
		targets []string
		otlp    string
		usage   bool
		opened  int
		want    string
	}{
		{"target", []string{"s3://missing"}, "", false, 1, "no such bucket"},
		{"one of several", []string{"lab", "s3://missing"}, "", false, 2, "s3://missing: no such bucket"},
		{"collector", nil, "ftp://collector", true, 0, "OTLP endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opened := 0
			cfg := probeConfig(t, "", &opened)
			cfg.NoSave, cfg.Targets, cfg.OTLP = true, c.targets, c.otlp
			labOpen := cfg.Open
			cfg.Open = func(raw string) (*target.Env, error) {
				if raw == "s3://missing" {
					opened++
					return nil, errNoBucket
				}
				return labOpen(raw)
			}
			out, err := Probe(context.Background(), cfg, probe.Options{Count: 1, Pool: 1, Size: 1}, analysis.DefaultPrices())
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) || usage.Is(err) != c.usage {
				t.Fatalf("probe: %v (a usage error: %t), want %q (usage %t)", err, usage.Is(err), c.want, c.usage)
			}
			if !c.usage && !errors.Is(err, errNoBucket) {
				t.Errorf("%v does not wrap the target's error", err)
			}
			if opened != c.opened || out.Docs != nil || out.Rounds != nil {
				t.Errorf("%d targets opened (want %d), outcome %+v", opened, c.opened, out)
			}
		})
	}
}

// TestProbeOutcomeExit: an interrupted probe ends as the caller's
// interruption whatever else failed; else the error that stopped a round
// wins; else failed requests and crossed thresholds are both said.
func TestProbeOutcomeExit(t *testing.T) {
	t.Parallel()
	errInterrupted, errStopped, errThreshold := errors.New("interrupted"), errors.New("round stopped"), errors.New("p99 above 10ms")
	failed := []*probe.Round{{Samples: make([]nettrace.Sample, 4), Failed: 1}}
	ok := []*probe.Round{{Samples: make([]nettrace.Sample, 4)}}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name       string
		ctx        context.Context
		outcome    ProbeOutcome
		thresholds error
		want       string // "" nil
		is         error  // the error it must be, when set
	}{
		{name: "all passed", ctx: context.Background(), outcome: ProbeOutcome{Rounds: ok}},
		{name: "interrupted, whatever failed", ctx: canceled, outcome: ProbeOutcome{Rounds: failed, Err: errStopped}, thresholds: errThreshold,
			want: "interrupted", is: errInterrupted},
		{name: "a round stopped", ctx: context.Background(), outcome: ProbeOutcome{Rounds: failed, Err: errStopped}, thresholds: errThreshold,
			want: "round stopped", is: errStopped},
		{name: "failed and crossed", ctx: context.Background(), outcome: ProbeOutcome{Rounds: failed}, thresholds: errThreshold,
			want: "1 of 4 requests failed\np99 above 10ms", is: errThreshold},
		{name: "failed", ctx: context.Background(), outcome: ProbeOutcome{Rounds: failed}, want: "1 of 4 requests failed"},
		{name: "crossed", ctx: context.Background(), outcome: ProbeOutcome{Rounds: ok}, thresholds: errThreshold, want: "p99 above 10ms", is: errThreshold},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.outcome.Exit(c.ctx, errInterrupted, c.thresholds)
			if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && got != c.want || c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("Exit = %v, want %q (is %v)", err, c.want, c.is)
			}
		})
	}
}

// TestProbeDocument: the round's document is a probe's, on the target
// probed, with the round's number and its requests' sequence numbers.
func TestProbeDocument(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	opened := 0
	cfg := probeConfig(t, "", &opened)
	cfg.NoSave = true
	p, err := OpenProber(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	o := probe.Options{Count: 3, Pool: 1, Size: 1 << 10, Timeout: 30 * time.Second}
	var docs []*document.Document
	for range 2 { // a second round goes on from the first's requests, on its connection
		d, _, err := p.Round(context.Background(), p.Targets, o)
		if err != nil || len(d) != 1 {
			t.Fatalf("round: %v, %d documents", err, len(d))
		}
		docs = append(docs, d[0])
	}
	first, second := docs[0], docs[1]
	if first.Probe == nil || second.Probe == nil || first.Target.URL != p.URLs()[0] {
		t.Fatalf("documents: %+v %+v on %q", first.Probe, second.Probe, first.Target.URL)
	}
	if first.Probe.Round+1 != second.Probe.Round || first.Probe.SeqFirst != 0 || first.Probe.SeqLast != 2 || second.Probe.SeqFirst != 3 {
		t.Errorf("rounds %+v then %+v", *first.Probe, *second.Probe)
	}
	if second.Results[0].FirstRequest.ReusedFraction != 1 {
		t.Errorf("the second round's first request did not reuse the first's connection: %+v", second.Results[0].FirstRequest)
	}
}
