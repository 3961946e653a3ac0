package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/lab"
)

// labFlags configure the embedded lab, for `run` on the lab and for `lab`.
type labFlags struct {
	api         string
	tls         bool
	tlsVersion  string
	rtt, jitter time.Duration
	bandwidth   string
	serviceTime time.Duration
	idleTimeout time.Duration
	faults      string
	port        int
}

func (lf *labFlags) register(fs *pflag.FlagSet, withAPI bool) {
	if withAPI {
		fs.StringVar(&lf.api, "lab-api", "s3", "lab: which embedded endpoint to measure: s3, gcs or azure (azure needs azurite-blob on PATH)")
	}
	fs.BoolVar(&lf.tls, "tls", false, "lab: serve HTTPS from an in-memory CA (HTTP/2 offered)")
	fs.StringVar(&lf.tlsVersion, "tls-version", "1.3", "lab: highest TLS version the server speaks: 1.3 (1 round trip) or 1.2 (2 round trips)")
	fs.DurationVar(&lf.rtt, "rtt", -1, "lab: round-trip time of the emulated link, overriding the profile (e.g. 40ms)")
	fs.DurationVar(&lf.jitter, "jitter", -1, "lab: jitter of the round trip, overriding the profile (e.g. 5ms)")
	fs.StringVar(&lf.bandwidth, "bandwidth", "", "lab: bandwidth cap each way, overriding the profile (e.g. 100Mbit, 1Gbit; 0 = none)")
	fs.DurationVar(&lf.serviceTime, "service-time", 0, "lab: server time added before each response (e.g. 10ms)")
	fs.DurationVar(&lf.idleTimeout, "idle-timeout", 20*time.Second, "lab: the server closes keep-alive connections idle longer than this")
	fs.StringVar(&lf.faults, "fault", "", "lab: faults per request, e.g. reset=2%,timeout=1%,slowdown=5%,stall=1%")
	// -1 means "the profile's"; show no default rather than -1ns.
	fs.Lookup("rtt").DefValue = "0s"
	fs.Lookup("jitter").DefValue = "0s"
}

// changed reports lab flags set on the command line, for refusing them with a real target.
func (lf *labFlags) changed(fs *pflag.FlagSet) []string {
	var out []string
	for _, n := range []string{"lab-api", "tls", "tls-version", "rtt", "jitter", "bandwidth", "service-time", "idle-timeout", "fault", "port"} {
		if f := fs.Lookup(n); f != nil && f.Changed {
			out = append(out, "--"+n)
		}
	}
	return out
}

// config validates the flags into a lab configuration (usage errors).
func (lf *labFlags) config(apis []string, profile string) (lab.Config, error) {
	cfg := lab.Config{APIs: apis, Profile: profile, TLS: lf.tls, ServiceTime: lf.serviceTime, IdleTimeout: lf.idleTimeout, Port: lf.port}
	if _, err := lab.LookupProfile(profile); err != nil {
		return cfg, usageError{err}
	}
	switch lf.tlsVersion {
	case "1.3", "":
		cfg.TLSVersion = tls.VersionTLS13
	case "1.2":
		cfg.TLSVersion = tls.VersionTLS12
	default:
		return cfg, usagef("--tls-version %q: use 1.2 or 1.3", lf.tlsVersion)
	}
	if lf.rtt != -1 {
		if lf.rtt < 0 || lf.rtt > 10*time.Second {
			return cfg, usagef("--rtt %s: use a round trip from 0 to 10s", lf.rtt)
		}
		cfg.RTT = &lf.rtt
	}
	if lf.jitter != -1 {
		if lf.jitter < 0 || lf.jitter > 10*time.Second {
			return cfg, usagef("--jitter %s: use a jitter from 0 to 10s", lf.jitter)
		}
		cfg.Jitter = &lf.jitter
	}
	if lf.bandwidth != "" {
		bw, err := lab.ParseBandwidth(lf.bandwidth)
		if err != nil {
			return cfg, usagef("--bandwidth: %w", err)
		}
		cfg.Bandwidth = &bw
	}
	if lf.serviceTime < 0 || lf.idleTimeout <= 0 {
		return cfg, usagef("--service-time must not be negative and --idle-timeout must be positive")
	}
	if lf.port < 0 || lf.port > 65535 {
		return cfg, usagef("--port %d: use 1-65535, or 0 for free ports", lf.port)
	}
	f, err := lab.ParseFaults(lf.faults)
	if err != nil {
		return cfg, usagef("--fault: %w", err)
	}
	cfg.Faults = f
	return cfg, nil
}

// start starts a lab, mapping a missing Azurite to a plain failure.
func (lf *labFlags) start(ctx context.Context, apis []string, profile string) (*lab.Lab, error) {
	cfg, err := lf.config(apis, profile)
	if err != nil {
		return nil, err
	}
	l, err := lab.Start(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	return l, nil
}
