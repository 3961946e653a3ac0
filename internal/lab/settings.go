package lab

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/lab/twin"
	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

// MaxRTT bounds the emulated round trip and its jitter: a longer one is a
// mistake. Settings.Config checks the user's values against it; Start
// only guards against a Config built by hand with the same rule.
const MaxRTT = 10 * time.Second

// Settings are the lab's knobs as a user writes them (the command line's
// flags): raw sizes, rates and fault lists, validated into a Config by
// Config. An RTT or Jitter left nil is the profile's.
type Settings struct {
	API         string
	TLS         bool
	NoTLS       bool
	TLSVersion  string
	RTT, Jitter *time.Duration
	Bandwidth   string
	ServiceTime time.Duration
	IdleTimeout time.Duration
	Faults      string
	Port        int
	// Loss is random loss ("0.5%") or bursty loss ("gemodel:1%,30%"):
	// ParseLossModel.
	Loss, Queue string
	// Reorder ("25%,50%") and Duplicate ("1%") are netem's reorder and
	// duplicate, each way: ParseReorder, ParseDuplicate.
	Reorder, Duplicate string
	MTU                int
	DNSTime            time.Duration
	DNSTTL             time.Duration
	RecvBuffer         string
	SendBuffer         string
	// Record is lab --record and explain: keep every connection and request.
	Record bool
	// Network is lab exec's and explain's --network: auto, netns or netstack.
	Network string
	// ProfileFile is a measured profile (objbench calibrate) to reproduce
	// instead of a named one; the flags above that the user gave win.
	ProfileFile string
	// Upstream is a real server to serve behind the wire (ParseUpstream).
	Upstream string
	// Express serves the S3 bucket as an S3 Express One Zone directory
	// bucket; SessionLifetime is how long its sessions last (0: 5 minutes).
	Express         bool
	SessionLifetime time.Duration
	// Limit is the servers' request-rate limits (server.ParseLimits), e.g.
	// "s3:get=200/s"; "" is the profile's, unlimited for every named one.
	Limit string
	// ExactWire keeps the wire's CPU awake before each packet's time
	// (Config.ExactWire).
	ExactWire bool
}

// RefuseOffLab is the usage error for lab settings given with target, a
// real one, where they would be ignored: given names them by their fields
// (RTT), in the order the user gave them. nil when none was given.
func RefuseOffLab(given []string, target string) error {
	if len(given) == 0 {
		return nil
	}
	named := make([]string, len(given))
	for i, field := range given {
		named[i] = "{" + field + "}"
	}
	return usage.Fieldf(strings.Join(named, ", ")+" apply to the embedded lab only (TARGET lab[:PROFILE] or none), not to %s", target)
}

// realFields are the settings that shape the impairment a program's real
// path takes on (explain --real); every other setting is the lab's alone.
var realFields = map[string]bool{"RTT": true, "Jitter": true, "Bandwidth": true, "Loss": true, "Queue": true, "MTU": true, "Network": true}

// RealWire is the impairment the settings (and profile's link: its bursty
// loss, reordering and duplication too) add on top of a program's real
// path. given names the settings the user gave, by field, as for
// RefuseOffLab: one the real path cannot apply is a usage error.
func (lf Settings) RealWire(given []string, profile string) (netem.Config, error) {
	var refused []string
	for _, field := range given {
		if !realFields[field] {
			refused = append(refused, "{"+field+"}")
		}
	}
	if len(refused) > 0 {
		return netem.Config{}, usage.Fieldf(strings.Join(refused, ", ") + " apply to the lab, not to the real path of --real (which adds only {RTT}, {Jitter}, {Bandwidth}, {Loss}, {Queue}, {MTU})")
	}
	cfg, err := lf.Config(nil, profile)
	if err != nil {
		return netem.Config{}, err
	}
	w, err := cfg.Wire()
	if err != nil {
		return netem.Config{}, usage.Wrap(err)
	}
	return w, nil
}

// Config validates the settings into a lab configuration serving apis
// over profile. It is where the settings are checked: every error is the
// user's to fix (a usage.Error naming the setting by its field), and a
// Config it returns is one Start accepts.
func (lf Settings) Config(apis []string, profile string) (Config, error) {
	cfg := Config{APIs: apis, Profile: profile, ServiceTime: lf.ServiceTime, IdleTimeout: lf.IdleTimeout, Port: lf.Port,
		MTU: lf.MTU, DNSTime: lf.DNSTime, DNSTTL: lf.DNSTTL, Record: lf.Record, Network: lf.Network,
		Express: lf.Express, SessionLifetime: lf.SessionLifetime}
	switch lf.Network {
	case "", NetworkAuto, NetworkNetns, NetworkNetstack:
	default:
		return cfg, usage.Fieldf("{Network} %q: use auto, netns or netstack", lf.Network)
	}
	var measured *twin.Measured
	var err error
	if file := lf.ProfileFile; twin.IsProfileFile(profile) || file != "" {
		if file != "" && profile != "" {
			return cfg, errMeasuredAndNamed
		}
		if file == "" {
			file = profile
		}
		if measured, err = twin.LoadMeasured(file); err != nil {
			return cfg, err
		}
		cfg.Profile, profile = "", ""
	}
	prof, err := LookupProfile(profile)
	if err != nil {
		return cfg, err
	}
	if lf.TLS && lf.NoTLS {
		return cfg, usage.Fieldf("{TLS} and {NoTLS} contradict each other")
	}
	// Every cloud endpoint speaks HTTPS: so does every profile but local,
	// and a measured profile when its endpoint did.
	cfg.TLS = lf.TLS || (prof.Name != "local" && !lf.NoTLS) || (measured != nil && measured.Network.TLS && !lf.NoTLS)
	if lf.Upstream != "" {
		if cfg.Upstream, err = server.ParseUpstream(lf.Upstream); err != nil {
			return cfg, usage.Fieldf("{Upstream}: %w", err)
		}
	}
	if err := checkExpress(lf, apis); err != nil {
		return cfg, err
	}
	if err := netem.CheckMTU(lf.MTU); err != nil {
		return cfg, usage.Fieldf("{MTU} %w", err)
	}
	if lf.DNSTime < 0 || lf.DNSTime > 10*time.Second {
		return cfg, usage.Fieldf("{DNSTime} %s: use a lookup time from 0 to 10s", lf.DNSTime)
	}
	if lf.DNSTTL < 0 {
		return cfg, usage.Fieldf("{DNSTTL} %s: must not be negative", lf.DNSTTL)
	}
	if lf.Loss != "" {
		// One loss model: the one given replaces the profile's.
		loss, bursty, err := ParseLossModel(lf.Loss)
		if err != nil {
			return cfg, usage.Fieldf("{Loss}: %w", err)
		}
		cfg.Loss, cfg.Bursty = &loss, &bursty
	}
	if lf.Reorder != "" {
		r, err := ParseReorder(lf.Reorder)
		if err != nil {
			return cfg, usage.Fieldf("{Reorder}: %w", err)
		}
		cfg.Reorder = &r
	}
	if lf.Duplicate != "" {
		d, err := ParseDuplicate(lf.Duplicate)
		if err != nil {
			return cfg, usage.Fieldf("{Duplicate}: %w", err)
		}
		cfg.Duplicate = &d
	}
	if lf.Queue != "" {
		if cfg.Queue, err = ParseQueue(lf.Queue, lf.MTU); err != nil {
			return cfg, usage.Fieldf("{Queue}: %w", err)
		}
	}
	for _, b := range []struct {
		field, v string
		dst      *int
	}{{"{RecvBuffer}", lf.RecvBuffer, &cfg.RecvBuffer}, {"{SendBuffer}", lf.SendBuffer, &cfg.SendBuffer}} {
		if b.v == "" {
			continue
		}
		n, err := units.ParseSize(b.v)
		if err != nil || n < 4096 || n > 1<<30 {
			return cfg, usage.Fieldf(b.field+" %q: use a size from 4KiB to 1GiB", b.v)
		}
		*b.dst = int(n)
	}
	switch lf.TLSVersion {
	case "1.3", "":
		cfg.TLSVersion = tls.VersionTLS13
	case "1.2":
		cfg.TLSVersion = tls.VersionTLS12
	default:
		return cfg, usage.Fieldf("{TLSVersion} %q: use 1.2 or 1.3", lf.TLSVersion)
	}
	if lf.RTT != nil {
		if err := checkRTT(*lf.RTT); err != nil {
			return cfg, usage.Fieldf("{RTT} %s: use a round trip %w", *lf.RTT, err)
		}
		rtt := *lf.RTT
		cfg.RTT = &rtt
	}
	if lf.Jitter != nil {
		if err := checkRTT(*lf.Jitter); err != nil {
			return cfg, usage.Fieldf("{Jitter} %s: use a jitter %w", *lf.Jitter, err)
		}
		jitter := *lf.Jitter
		cfg.Jitter = &jitter
	}
	if lf.Bandwidth != "" {
		bw, err := ParseBandwidth(lf.Bandwidth)
		if err != nil {
			return cfg, usage.Fieldf("{Bandwidth}: %w", err)
		}
		cfg.Bandwidth = &bw
	}
	if lf.ServiceTime < 0 || lf.IdleTimeout <= 0 {
		return cfg, usage.Fieldf("{ServiceTime} must not be negative and {IdleTimeout} must be positive")
	}
	if lf.Port < 0 || lf.Port > 65535 {
		return cfg, usage.Fieldf("{Port} %d: use 1-65535, or 0 for free ports", lf.Port)
	}
	f, err := server.ParseFaults(lf.Faults)
	if err != nil {
		return cfg, usage.Fieldf("{Faults}: %w", err)
	}
	cfg.Faults = f
	limit := lf.Limit
	if limit == "" {
		limit = prof.Limit
		if measured != nil {
			limit = measured.Limit
		}
	}
	if cfg.Limit, err = server.ParseLimits(limit); err != nil {
		return cfg, usage.Fieldf("{Limit} %q: %w (e.g. s3:get=200/s, gcs:write=100/s or azure:blob=50/s; s3, gcs or azure alone for the provider's documented rates)", limit, err)
	}
	if measured != nil {
		given := cfg.Faults
		applyMeasured(measured, &cfg)
		if lf.Faults != "" {
			cfg.Faults = given
		}
		if lf.DNSTime > 0 {
			cfg.DNSTime = lf.DNSTime
		}
	}
	// The link as a whole (a profile's jitter under a given round trip, a
	// measured profile's values), by the rule Start guards with.
	if l := cfg.link(prof); l.Reorder.Share > 0 && l.RTT == 0 {
		return cfg, usage.Fieldf("{Reorder} %s: reordering needs a round trip (reordered packets skip the delay the others wait out): add {RTT} or a profile with one", lf.Reorder)
	}
	if err := checkLink(cfg.link(prof)); err != nil {
		return cfg, usage.Wrap(err)
	}
	if cfg.ExactWire = lf.ExactWire; cfg.ExactWire && cfg.link(prof).Bandwidth == 0 {
		return cfg, usage.Fieldf("{ExactWire} needs a {Bandwidth} cap: without a bottleneck the wire's precision decides nothing, and Linux's receive autotuning stalls on a wire that delivers each packet at its own time")
	}
	return cfg, usage.Wrap(checkNetwork(cfg))
}

// WriteCA writes the lab's CA certificate into a new temporary folder
// for other programs (their CA bundle); remove removes the folder. With no
// TLS, there is no file: "" and a remove that does nothing.
func (l *Lab) WriteCA() (path string, remove func(), err error) {
	pem := l.CAPEM()
	if pem == nil {
		return "", func() {}, nil
	}
	dir, err := os.MkdirTemp("", "objbench-lab-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(path, pem, 0o644); err != nil {
		remove()
		return "", nil, err
	}
	return path, remove, nil
}
