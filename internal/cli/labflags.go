package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/units"
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
	noTLS       bool
	loss, queue string
	mtu         int
	dnsTime     time.Duration
	dnsTTL      time.Duration
	recvBuffer  string
	sendBuffer  string
	// record is lab --record: keep every connection and request.
	record bool
}

func (lf *labFlags) register(fs *pflag.FlagSet, withAPI bool) {
	if withAPI {
		fs.StringVar(&lf.api, "lab-api", "s3", "lab: which embedded endpoint to measure: s3, gcs or azure (azure needs azurite-blob on PATH)")
	}
	fs.BoolVar(&lf.tls, "tls", false, "lab: serve HTTPS from an in-memory CA (HTTP/2 offered); the default on every profile but local")
	fs.BoolVar(&lf.noTLS, "no-tls", false, "lab: serve plain HTTP even on a profile that defaults to HTTPS")
	fs.StringVar(&lf.tlsVersion, "tls-version", "1.3", "lab: highest TLS version the server speaks: 1.3 (1 round trip) or 1.2 (2 round trips)")
	fs.DurationVar(&lf.rtt, "rtt", -1, "lab: round-trip time of the emulated link, overriding the profile (e.g. 40ms)")
	fs.DurationVar(&lf.jitter, "jitter", -1, "lab: jitter of the round trip, overriding the profile (e.g. 5ms)")
	fs.StringVar(&lf.bandwidth, "bandwidth", "", "lab: bandwidth cap each way, overriding the profile (e.g. 100Mbit, 1Gbit; 0 = none)")
	fs.DurationVar(&lf.serviceTime, "service-time", 0, "lab: server time added before each response (e.g. 10ms)")
	fs.DurationVar(&lf.idleTimeout, "idle-timeout", 20*time.Second, "lab: the server closes keep-alive connections idle longer than this")
	fs.StringVar(&lf.loss, "loss", "", "lab: random packet loss each way, overriding the profile (e.g. 0.5%)")
	fs.StringVar(&lf.queue, "queue", "", "lab: the bottleneck's drop-tail queue each way, in packets (100) or bytes (256KiB); default one bandwidth-delay product, at least 256 packets")
	fs.IntVar(&lf.mtu, "mtu", 1500, "lab: MTU of the emulated wire (576 to 65535)")
	fs.DurationVar(&lf.dnsTime, "dns-time", 0, "lab: name lookup time of the lab's resolver; when set, objbench reaches the lab by name (s3.objbench.test) and each new connection pays it")
	fs.DurationVar(&lf.dnsTTL, "dns-ttl", 5*time.Second, "lab: time to live of the lab resolver's answers")
	fs.StringVar(&lf.recvBuffer, "recv-buffer", "6MiB", "lab: most a TCP receive buffer autotunes to (Linux tcp_rmem max): the receive window's cap")
	fs.StringVar(&lf.sendBuffer, "send-buffer", "4MiB", "lab: most the client's TCP send buffer autotunes to (Linux tcp_wmem max)")
	fs.StringVar(&lf.faults, "fault", "", "lab: faults per request, e.g. reset=2%,timeout=1%,slowdown=5%,stall=1%")
	// -1 means "the profile's"; show no default rather than -1ns.
	fs.Lookup("rtt").DefValue = "0s"
	fs.Lookup("jitter").DefValue = "0s"
}

// changed reports lab flags set on the command line, for refusing them with a real target.
func (lf *labFlags) changed(fs *pflag.FlagSet) []string {
	var out []string
	for _, n := range []string{"lab-api", "tls", "no-tls", "tls-version", "rtt", "jitter", "bandwidth", "loss", "queue", "mtu", "dns-time", "dns-ttl", "recv-buffer", "send-buffer", "service-time", "idle-timeout", "fault", "port"} {
		if f := fs.Lookup(n); f != nil && f.Changed {
			out = append(out, "--"+n)
		}
	}
	return out
}

// config validates the flags into a lab configuration (usage errors).
func (lf *labFlags) config(apis []string, profile string) (lab.Config, error) {
	cfg := lab.Config{APIs: apis, Profile: profile, ServiceTime: lf.serviceTime, IdleTimeout: lf.idleTimeout, Port: lf.port,
		MTU: lf.mtu, DNSTime: lf.dnsTime, DNSTTL: lf.dnsTTL, Record: lf.record}
	prof, err := lab.LookupProfile(profile)
	if err != nil {
		return cfg, usageError{err}
	}
	if lf.tls && lf.noTLS {
		return cfg, usagef("--tls and --no-tls contradict each other")
	}
	// Every cloud endpoint speaks HTTPS: so does every profile but local.
	cfg.TLS = lf.tls || (prof.Name != "local" && !lf.noTLS)
	if lf.mtu < 576 || lf.mtu > 65535 {
		return cfg, usagef("--mtu %d: use 576 (the IPv4 minimum) to 65535", lf.mtu)
	}
	if lf.dnsTime < 0 || lf.dnsTime > 10*time.Second {
		return cfg, usagef("--dns-time %s: use a lookup time from 0 to 10s", lf.dnsTime)
	}
	if lf.dnsTTL < 0 {
		return cfg, usagef("--dns-ttl %s: must not be negative", lf.dnsTTL)
	}
	if lf.loss != "" {
		loss, err := lab.ParseLoss(lf.loss)
		if err != nil {
			return cfg, usagef("--loss: %w", err)
		}
		cfg.Loss = &loss
	}
	if lf.queue != "" {
		if cfg.Queue, err = lab.ParseQueue(lf.queue, lf.mtu); err != nil {
			return cfg, usagef("--queue: %w", err)
		}
	}
	for _, b := range []struct {
		name, v string
		dst     *int
	}{{"recv-buffer", lf.recvBuffer, &cfg.RecvBuffer}, {"send-buffer", lf.sendBuffer, &cfg.SendBuffer}} {
		if b.v == "" {
			continue
		}
		n, err := units.ParseSize(b.v)
		if err != nil || n < 4096 || n > 1<<30 {
			return cfg, usagef("--%s %q: use a size from 4KiB to 1GiB", b.name, b.v)
		}
		*b.dst = int(n)
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
