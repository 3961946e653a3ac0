package cli

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/usage"
)

// labFlags configure the embedded lab, for `run` on the lab and for `lab`.
type labFlags lab.Settings

// labFlagMark is the annotation that marks a flag as the lab's: a command
// that reaches a real bucket refuses every flag so marked (refuseLabFlags),
// so a new lab flag is refused there as soon as it is registered here.
const labFlagMark = "objbench/lab"

// markLab marks the flag named name as the lab's (see labFlagMark).
func markLab(fs *pflag.FlagSet, name string) {
	if err := fs.SetAnnotation(name, labFlagMark, []string{"true"}); err != nil {
		panic(err) // a flag registered a line above: a programming error
	}
}

// isLabFlag says whether f carries the lab's mark.
func isLabFlag(f *pflag.Flag) bool { _, ok := f.Annotations[labFlagMark]; return ok }

// refuseLabFlags is the usage error for the lab's flags given with raw, a
// real target (nil when none was given): see lab.RefuseOffLab.
func refuseLabFlags(fs *pflag.FlagSet, raw string) error {
	return lab.RefuseOffLab(givenLabFields(fs), raw)
}

// givenLabFields names the lab's flags given on fs by their fields (RTT),
// in the order the user gave them.
func givenLabFields(fs *pflag.FlagSet) []string {
	var given []string
	sorted := fs.SortFlags
	fs.SortFlags = false
	defer func() { fs.SortFlags = sorted }()
	fs.Visit(func(f *pflag.Flag) {
		if isLabFlag(f) {
			given = append(given, fieldOf(f))
		}
	})
	return given
}

// register adds the lab's flags to fs, each marked as the lab's; withAPI
// adds --network and --lab-api (commands that also reach a bucket).
func (lf *labFlags) register(fs *pflag.FlagSet, withAPI bool) {
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	defer func() {
		fs.VisitAll(func(f *pflag.Flag) {
			if !before[f.Name] {
				markLab(fs, f.Name)
			}
		})
		nameFields(fs, (*lab.Settings)(lf))
	}()
	if withAPI {
		lf.registerNetwork(fs, "lab: objbench's own TCP: netstack (user-space stacks, anywhere), netns (the kernel's TCP at both ends of the wire, in network namespaces: Linux, root or user namespaces), or auto: netns behind a --bandwidth cap or with --loss or --reorder where namespaces work (the user-space stacks lose time there), else netstack")
		fs.StringVar(&lf.API, "lab-api", "s3", "lab: which embedded endpoint to measure: s3, gcs or azure (azure needs azurite-blob on PATH)")
	}
	fs.BoolVar(&lf.TLS, "tls", false, "lab: serve HTTPS from an in-memory CA (HTTP/2 offered); the default on every profile but local")
	fs.BoolVar(&lf.NoTLS, "no-tls", false, "lab: serve plain HTTP even on a profile that defaults to HTTPS")
	fs.StringVar(&lf.TLSVersion, "tls-version", "1.3", "lab: highest TLS version the server speaks: 1.3 (1 round trip) or 1.2 (2 round trips)")
	fs.Var(optDuration{&lf.RTT}, "rtt", "lab: round-trip time of the emulated link, overriding the profile (e.g. 40ms)")
	fs.Var(optDuration{&lf.Jitter}, "jitter", "lab: jitter of the round trip, overriding the profile (e.g. 5ms)")
	fs.StringVar(&lf.Bandwidth, "bandwidth", "", "lab: bandwidth cap each way, overriding the profile (e.g. 100Mbit, 1Gbit; 0 = none)")
	fs.DurationVar(&lf.ServiceTime, "service-time", 0, "lab: server time added before each response (e.g. 10ms)")
	fs.DurationVar(&lf.IdleTimeout, "idle-timeout", 20*time.Second, "lab: the server closes keep-alive connections idle longer than this")
	fs.StringVar(&lf.Loss, "loss", "", "lab: packet loss each way, overriding the profile: random (e.g. 0.5%) or in bursts as netem's gemodel, gemodel:P[,R[,1-H[,1-K]]] (e.g. gemodel:1%,30%: enter the bad state with 1% per packet, leave it with 30%, so bursts of 3.3 packets)")
	fs.StringVar(&lf.Reorder, "reorder", "", "lab: reordering each way as netem's reorder P%[,CORR%] (e.g. 25%,50%): that share of packets is sent at once while the others wait out the delay (half the round trip), so they arrive ahead of the packets sent up to a delay before them; it needs a round trip")
	fs.StringVar(&lf.Duplicate, "duplicate", "", "lab: share of packets sent twice each way, as netem's duplicate (e.g. 1%)")
	fs.StringVar(&lf.Queue, "queue", "", "lab: the bottleneck's drop-tail queue each way, in packets (100) or bytes (256KiB); default one bandwidth-delay product, at least 256 packets")
	fs.IntVar(&lf.MTU, "mtu", 1500, "lab: MTU of the emulated wire (576 to 65535)")
	fs.DurationVar(&lf.DNSTime, "dns-time", 0, "lab: name lookup time of the lab's resolver; when set, objbench reaches the lab by name (s3.objbench.test) and each new connection pays it")
	fs.DurationVar(&lf.DNSTTL, "dns-ttl", 5*time.Second, "lab: time to live of the lab resolver's answers")
	fs.StringVar(&lf.RecvBuffer, "recv-buffer", "6MiB", "lab: most a TCP receive buffer autotunes to (Linux tcp_rmem max): the receive window's cap")
	fs.StringVar(&lf.SendBuffer, "send-buffer", "4MiB", "lab: most the client's TCP send buffer autotunes to (Linux tcp_wmem max)")
	fs.BoolVar(&lf.ExactWire, "exact-wire", false, "lab: keep the wire's CPU awake for the last 0.3 ms before each packet's time, so that packets leave on time behind a small --queue (a sleeping CPU wakes 0.1 ms late or more, which there moves a transfer by up to three times: the finding lab-wire-imprecise); costs up to a core each way while packets are in flight; needs --bandwidth")
	fs.StringVar(&lf.Faults, "fault", "", "lab: faults per request, e.g. reset=2%,timeout=1%,slowdown=5%,stall=1%,corrupt=1% (a byte flipped in a GET body)")
	fs.StringVar(&lf.Limit, "limit", "", "lab: request-rate limits as each provider documents them, answered with its own error (S3 503 SlowDown, GCS 429, Azure 503 ServerBusy): "+
		"s3:get=200/s (per key prefix, the key's folder; 's3' alone is 5500 GET, 3500 PUT/s; partition=off stops a hot prefix doubling after 30m), "+
		"gcs:read=500/s,write=100/s (per bucket, doubling every 20m of sustained load; 'gcs' alone is 5000/1000), "+
		"azure:account=2000/s,blob=50/s ('azure' alone is 20000 per account, 500 per blob); scale=60 runs the periods 60 times faster; several joined by ';'")
	fs.StringVar(&lf.Upstream, "upstream", "", "lab: put the link in front of a real server instead of the embedded one: S3 (http://127.0.0.1:9000[/bucket]) or GCS (gcs=URL); its own credentials")
	fs.BoolVar(&lf.Express, "express", false, "lab: serve the S3 bucket as an S3 Express One Zone directory bucket ("+server.ExpressBucket+"): CreateSession, requests signed with its sessions, the class's "+server.ExpressServiceTime.String()+" service time unless --service-time is given")
	fs.DurationVar(&lf.SessionLifetime, "session-lifetime", 0, "lab: how long a directory bucket's session lasts (--express; default S3's 5m; aws-sdk-go-v2 refreshes a session in its last minute)")
	if !withAPI { // run has --profile for AWS, and lab:FILE for this
		fs.StringVar(&lf.ProfileFile, "profile", "", "lab: be the twin of a bucket measured by 'objbench probe --save-profile FILE': its round trip, jitter, rate, TLS, HTTP/2, service times and errors (flags given win)")
	}
}

// registerNetwork adds --network, marked as the lab's, with usage.
func (lf *labFlags) registerNetwork(fs *pflag.FlagSet, usage string) {
	fs.StringVar(&lf.Network, "network", lab.NetworkAuto, usage)
	markLab(fs, "network")
	nameFields(fs, (*lab.Settings)(lf))
}

// config validates the flags into a lab configuration (usage errors
// naming fields, printed as these flags).
func (lf *labFlags) config(apis []string, profile string) (lab.Config, error) {
	cfg, err := lab.Settings(*lf).Config(apis, profile)
	return cfg, usage.Wrap(err)
}

// startAll starts a lab serving every API it can (see lab.StartAll).
func (lf *labFlags) startAll(ctx context.Context, profile string) (*lab.Lab, []string, bool, error) {
	cfg, err := lf.config(nil, profile)
	if err != nil {
		return nil, nil, false, err
	}
	return lab.StartAll(ctx, cfg)
}
