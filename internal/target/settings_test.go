package target

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/usage"
)

func TestSettingsConfig(t *testing.T) {
	t.Parallel()
	base := Settings{Timeout: 30 * time.Second, Upload: "auto", Client: storage.ClientSDK,
		Lab: lab.Settings{API: "s3", TLSVersion: "1.3", IdleTimeout: 20 * time.Second, MTU: 1500}}
	gcsCross := LabDefaults{API: "gcs", Profile: "cross-region"}
	cases := []struct {
		name    string
		raw     string
		def     LabDefaults
		changed []string
		edit    func(*Settings)
		check   func(*testing.T, Config)
		field   string // the setting a usage error names
	}{
		{name: "a bucket keeps its settings", raw: "s3://b/p", edit: func(s *Settings) { s.Upload, s.PartSize, s.Prefix = "multipart", "8MiB", "x" },
			check: func(t *testing.T, c Config) {
				if c.URL != "s3://b/p" || c.Upload != storage.UploadMultipart || c.PartSize != 8<<20 || c.Prefix != "x" || c.RunID != "id" || c.LabAPI != "" {
					t.Errorf("config %+v", c)
				}
			}},
		{name: "a non-lab flag is fine on a bucket", raw: "s3://b", changed: []string{"timeout"}, check: func(*testing.T, Config) {}},
		{name: "bad upload style", raw: "s3://b", edit: func(s *Settings) { s.Upload = "carrier-pigeon" }, field: "Upload"},
		{name: "zero part size", raw: "s3://b", edit: func(s *Settings) { s.PartSize = "0" }, field: "PartSize"},
		{name: "the command's lab defaults", def: gcsCross, check: func(t *testing.T, c Config) {
			if c.LabAPI != "gcs" || c.Lab.Profile != "cross-region" || !c.Lab.TLS {
				t.Errorf("lab api %q profile %q tls %v", c.LabAPI, c.Lab.Profile, c.Lab.TLS)
			}
		}},
		{name: "--lab-api given beats the command's default", def: gcsCross, changed: []string{"lab-api"}, check: func(t *testing.T, c Config) {
			if c.LabAPI != "s3" {
				t.Errorf("lab api %q", c.LabAPI)
			}
		}},
		{name: "lab:PROFILE beats the command's default", raw: "lab:same-region", def: gcsCross, check: func(t *testing.T, c Config) {
			if c.Lab.Profile != "same-region" {
				t.Errorf("profile %q", c.Lab.Profile)
			}
		}},
		{name: "a TLS default on local", def: LabDefaults{TLS: true}, check: func(t *testing.T, c Config) {
			if !c.Lab.TLS {
				t.Error("TLS off")
			}
		}},
		{name: "--tls given (off) beats a TLS default", def: LabDefaults{TLS: true}, changed: []string{"tls"}, check: func(t *testing.T, c Config) {
			if c.Lab.TLS {
				t.Error("TLS on")
			}
		}},
		{name: "a bad lab setting is a usage error", raw: "lab", edit: func(s *Settings) { s.Lab.MTU = 10 }, field: "MTU"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := base
			if c.edit != nil {
				c.edit(&s)
			}
			changed := func(n string) bool { return strings.Contains(","+strings.Join(c.changed, ",")+",", ","+n+",") }
			cfg, err := s.Config(c.raw, c.def, changed, "id")
			if c.field != "" {
				if !usage.Is(err) || usage.FieldOf(err) != c.field || strings.Contains(err.Error(), "--") {
					t.Fatalf("error %v (field %q), want a usage error naming the field %q and no flag", err, usage.FieldOf(err), c.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg)
		})
	}
}

func TestEnvWhere(t *testing.T) {
	t.Parallel()
	tg, err := storage.ParseTarget("s3://bucket/p")
	if err != nil {
		t.Fatal(err)
	}
	if got := (&Env{Target: tg, Endpoint: "http://127.0.0.1:9000"}).Where(); got != "http://127.0.0.1:9000" {
		t.Errorf("with an endpoint: %q", got)
	}
	if got := (&Env{Target: tg}).Where(); got != tg.String() || got == "" {
		t.Errorf("without one: %q, want %q", got, tg.String())
	}
}

// TestEnvLabRTT: strategies counts round trips in the lab link's RTT, and
// none off the lab.
func TestEnvLabRTT(t *testing.T) {
	t.Parallel()
	rtt := 30 * time.Millisecond
	s := Settings{Timeout: 30 * time.Second, Upload: "auto", Client: storage.ClientSDK,
		Lab: lab.Settings{API: "s3", TLSVersion: "1.3", RTT: &rtt, IdleTimeout: 20 * time.Second, MTU: 1500}}
	cfg, err := s.Config("lab:local", LabDefaults{}, func(string) bool { return false }, "id")
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := e.LabRTT(); got != 30*time.Millisecond {
		t.Errorf("on the lab: %s, want the link's 30ms", got)
	}
	if got := (&Env{}).LabRTT(); got != 0 {
		t.Errorf("off the lab: %s, want 0", got)
	}
}

// TestSettingsAddTo: a run document's options say the request timeout and
// how uploads were made, and the faults only on the lab, where they were
// injected.
func TestSettingsAddTo(t *testing.T) {
	t.Parallel()
	s := Settings{Timeout: 30 * time.Second, Upload: "multipart", PartSize: "8MiB", Client: storage.ClientSDK, PartConcurrency: 4}
	faulty := s
	faulty.Lab.Faults = "reset=2%"
	want := map[string]string{"timeout": "30s", "upload": "multipart", "part_size": "8MiB", "client": storage.ClientSDK, "part_concurrency": "4"}
	withFault := map[string]string{"fault": "reset=2%"}
	for k, v := range want {
		withFault[k] = v
	}
	for _, c := range []struct {
		name  string
		s     Settings
		onLab bool
		want  map[string]string
	}{
		{"bucket", s, false, want},
		{"lab", s, true, want},
		{"faults on a bucket", faulty, false, want},
		{"faults on the lab", faulty, true, withFault},
	} {
		m := map[string]string{"workload": "latency"}
		c.s.AddTo(m, c.onLab)
		delete(m, "workload")
		if fmt.Sprint(m) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.name, m, c.want)
		}
	}
}
