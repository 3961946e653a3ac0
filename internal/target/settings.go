package target

import (
	"fmt"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

// Settings are the target flags of every command that reaches a bucket,
// as the user writes them; Config checks them into a Config.
type Settings struct {
	Endpoint, Region, Profile string
	Timeout                   time.Duration
	Prefix                    string
	Force, CreateBucket       bool
	Upload, PartSize          string
	Client                    string
	PartConcurrency           int
	Lab                       lab.Settings
	// Persistent (probe, serve) keeps objects under objbench/probe/ (or
	// Prefix) across runs: the prefix need not be empty, and nothing is
	// deleted there.
	Persistent bool
}

// AddTo adds the target's part to a run document's options block: the
// request timeout and how uploads are made, and, on the lab (onLab), the
// faults it injects, which the findings set against the errors seen.
func (s Settings) AddTo(m map[string]string, onLab bool) {
	m["timeout"] = s.Timeout.String()
	m["upload"], m["part_size"], m["client"], m["part_concurrency"] = s.Upload, s.PartSize, s.Client, fmt.Sprint(s.PartConcurrency)
	if onLab && s.Lab.Faults != "" {
		m["fault"] = s.Lab.Faults
	}
}

// LabDefaults let a command choose the lab it runs on without a TARGET.
type LabDefaults struct {
	API, Profile string
	TLS          bool
}

// Config checks the settings for raw (a URL, "lab[:PROFILE]" or "" for
// the lab) into a target configuration; changed says which flags the user
// gave (a lab default yields to them). Every error is a usage.Error
// naming the setting's field. The
// lab's settings are ignored on a real target: the command line refuses
// the lab's flags there, from the marks it sets where it registers them.
func (s Settings) Config(raw string, def LabDefaults, changed func(flag string) bool, runID string) (Config, error) {
	cfg := Config{URL: raw, Endpoint: s.Endpoint, Region: s.Region, Profile: s.Profile, Timeout: s.Timeout,
		Prefix: s.Prefix, Force: s.Force, CreateBucket: s.CreateBucket, Persistent: s.Persistent,
		PartConcurrency: s.PartConcurrency, Client: s.Client, RunID: runID}
	var err error
	if cfg.Upload, err = storage.ParseUploadStyle(s.Upload); err != nil {
		return cfg, usage.Fieldf("{Upload}: %w", err)
	}
	if s.PartSize != "" {
		if cfg.PartSize, err = units.ParseSize(s.PartSize); err != nil || cfg.PartSize == 0 {
			return cfg, usage.Fieldf("{PartSize} %q: use a size such as 8MiB", s.PartSize)
		}
	}
	if !IsLab(raw) { // the command line refuses the lab's flags here
		return cfg, nil
	}
	cfg.LabAPI = s.Lab.API
	if !changed("lab-api") && def.API != "" {
		cfg.LabAPI = def.API
	}
	profile := LabProfile(raw)
	if profile == "" {
		profile = def.Profile
	}
	ls := s.Lab
	if !changed("tls") && def.TLS {
		ls.TLS = true
	}
	if cfg.Lab, err = ls.Config(nil, profile); err != nil {
		return cfg, usage.Wrap(err)
	}
	cfg.Lab.OwnClient = true
	if up := cfg.Lab.Upstream; up != nil {
		cfg.LabAPI = up.API
	}
	return cfg, nil
}
