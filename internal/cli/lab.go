package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/storage/providers"
	"github.com/objbench/objbench/internal/units"
)

func newLabCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	cmd := &cobra.Command{
		Use:   "lab [PROFILE]",
		Short: "Serve the embedded S3, GCS (and Azure) endpoints behind an emulated link, in the foreground",
		Long: `lab serves S3- and GCS-compatible endpoints (and Azure through Azurite, when azurite-blob
is on PATH) on 127.0.0.1 behind an emulated network link, for any client: the AWS CLI,
curl, your own program, or objbench in another terminal. Ctrl-C stops it.

Profiles (round-trip time; adjust with --rtt, --jitter, --bandwidth, --loss):
` + profileHelp() + `
Every profile but local is a network: two user-space TCP/IP stacks (gVisor's netstack)
joined by an emulated wire that delays each packet by half the round trip each way,
queues it behind the bandwidth in a drop-tail queue (--queue), drops it at random
(--loss), with an MTU of 1500. Handshakes, slow start, the congestion and receive windows
(autotuned up to --recv-buffer, as Linux does), queueing and retransmission are real TCP.
objbench reaches it in-process; any other program reaches it through the local
endpoints below, which open their connection across the wire before forwarding a byte,
so every client pays the same round trips. Every profile but local serves HTTPS, as the
clouds do (--no-tls to turn it off). With --dns-time, the endpoints have names under
.test answered by the lab's resolver after that lookup time.

What it does not emulate: other traffic sharing the path, reordering, path changes, the
servers' own CPU limits and the clouds' request-rate limits (see --fault for those).`,
		Example: `  objbench lab                                  # local profile, free ports
  objbench lab cross-region --tls               # 80 ms round trips, HTTPS with a printed CA file
  objbench lab --rtt 40ms --bandwidth 100Mbit --port 9000
  objbench lab --fault reset=2%,slowdown=5%     # misbehave on purpose
  objbench lab check --rtt 40ms                 # prove the link model on this machine
  objbench lab exec cross-region -- aws s3 ls s3://objbench/   # run a program against the lab`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("lab takes at most one PROFILE, got %q", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			profile := ""
			if len(args) == 1 {
				profile = args[0]
			}
			return runLab(cmd.Context(), &lf, profile, stdout, stderr)
		},
	}
	lf.register(cmd.Flags(), false)
	cmd.Flags().IntVar(&lf.port, "port", 0, "first port to listen on (s3, then gcs, then azure); 0 picks free ports")
	cmd.AddCommand(newLabCheckCmd(stdout, stderr))
	cmd.AddCommand(newLabExecCmd(stdout, stderr))
	return cmd
}

func profileHelp() string {
	var b strings.Builder
	for _, p := range lab.Profiles() {
		fmt.Fprintf(&b, "  %-17s %s\n", p.Name, p.Description)
	}
	return b.String()
}

func runLab(ctx context.Context, lf *labFlags, profile string, stdout, stderr io.Writer) error {
	apis := []string{"s3", "gcs", "azure"}
	l, err := lf.start(ctx, apis, profile)
	if errors.Is(err, lab.ErrNoAzurite) {
		fmt.Fprintf(stderr, "objbench: note: no Azure endpoint: %s\n", lab.ErrNoAzurite)
		apis = apis[:2]
		l, err = lf.start(ctx, apis, profile)
	}
	if err != nil {
		return err
	}
	defer l.Close()
	caFile := ""
	if pem := l.CAPEM(); pem != nil {
		dir, err := os.MkdirTemp("", "objbench-lab-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		caFile = filepath.Join(dir, "ca.pem")
		if err := os.WriteFile(caFile, pem, 0o644); err != nil {
			return err
		}
	}
	printLab(stdout, l, apis, caFile)
	<-ctx.Done()
	fmt.Fprintln(stdout, "objbench lab: stopping")
	return nil
}

func describeLink(l *lab.Lab) string {
	k := l.Link()
	bw := lab.FormatBandwidth(k.Bandwidth)
	if bw == "" {
		bw = "unlimited"
	}
	s := fmt.Sprintf("profile %s: round trip %s, jitter %s, bandwidth %s", l.Profile(), k.RTT, k.Jitter, bw)
	n := l.Network()
	if n.Model == "direct" {
		return s + "; direct (loopback, nothing emulated)"
	}
	s += fmt.Sprintf(", loss %g%%", k.Loss*100)
	if n.Queue > 0 {
		s += fmt.Sprintf(", queue %s", units.FormatSize(int64(n.Queue)))
	}
	return s + fmt.Sprintf("; network: user-space TCP (netstack), MTU %d, receive window up to %s, send buffer up to %s",
		n.MTU, units.FormatSize(int64(n.RecvBuffer)), units.FormatSize(int64(n.SendBuffer)))
}

func printLab(w io.Writer, l *lab.Lab, apis []string, caFile string) {
	fmt.Fprintf(w, "objbench lab: %s\n\n", describeLink(l))
	if addr := l.ResolverAddr(); addr != "" {
		fmt.Fprintf(w, "Names: s3.%s, gcs.%s and azure.%s resolve to 127.0.0.1 at the lab's resolver %s (dig @%s -p %s s3.%s)\n\n",
			lab.Domain, lab.Domain, lab.Domain, addr, addr[:strings.LastIndex(addr, ":")], addr[strings.LastIndex(addr, ":")+1:], lab.Domain)
	}
	s3 := l.LocalEndpoint("s3")
	creds := l.Credentials("s3")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "API\tENDPOINT\tBUCKET\tAUTH")
	fmt.Fprintf(tw, "s3\t%s\t%s\taccess key %s, secret %s (lab-only keys), region us-east-1\n", s3, lab.Bucket, creds.AccessKeyID, creds.SecretAccessKey)
	fmt.Fprintf(tw, "gcs\t%s\t%s\tnone (JSON API; STORAGE_EMULATOR_HOST=%s)\n", l.LocalEndpoint("gcs"), lab.Bucket, strings.TrimPrefix(strings.TrimPrefix(l.LocalEndpoint("gcs"), "http://"), "https://"))
	if len(apis) > 2 {
		fmt.Fprintf(tw, "azure\t%s\t%s\tAZURE_STORAGE_CONNECTION_STRING='%s'\n", l.LocalEndpoint("azure"), lab.Bucket, l.AzureConnectionString())
	}
	tw.Flush()
	caOpt, curlCA := "", ""
	if caFile != "" {
		fmt.Fprintf(w, "\nTLS: trust the lab's CA certificate %s\n", caFile)
		caOpt, curlCA = " --ca-bundle "+caFile, " --cacert "+caFile
	}
	fmt.Fprintf(w, `
Examples:
  export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_REGION=us-east-1
  aws --endpoint-url %s%s s3 cp ./file s3://%s/file
  aws --endpoint-url %s%s s3 ls s3://%s/
  curl%s %s/%s/file          # the embedded S3 server accepts unsigned requests
  curl%s -X POST --data-binary @file '%s/upload/storage/v1/b/%s/o?uploadType=media&name=file'
  objbench run s3://%s --endpoint %s      # with the exports above

Press Ctrl-C to stop.
`, creds.AccessKeyID, creds.SecretAccessKey, s3, caOpt, lab.Bucket, s3, caOpt, lab.Bucket,
		curlCA, s3, lab.Bucket, curlCA, l.LocalEndpoint("gcs"), lab.Bucket, lab.Bucket, s3)
}

func newLabCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	var jsonOut bool
	var samples int
	cmd := &cobra.Command{
		Use:   "check [PROFILE]",
		Short: "Prove the link model: expected round trips per phase against measured times",
		Long: `check starts a lab, makes fresh-connection and reused-connection requests through it,
plain and with TLS, each as a raw HTTP request and through each provider's own SDK (s3,
gcs, and azure when azurite-blob is on PATH), and prints, phase by phase, the round trips
the link model expects (TCP 1, TLS 1.3 1 or TLS 1.2 2, 1 per exchange, 1 for Expect:
100-continue, size over bandwidth for a body) next to the median each client measured,
with a pass/fail column (tolerance 15% plus 2 ms, plus the jitter). A row passes only
when every client passes: what the check proves is what a run through that SDK measures.
Exit status 1 when any row fails.

On an emulated network it adds the TCP model's rows (raw request): a cold 1 MiB and 4 MiB
GET on a new connection take the handshakes plus the round trips of slow start (10
segments, doubling per round trip; tolerance ±1 round trip), the same GET on the warmed
connection takes at least one fewer, and a 64 MiB GET on a long path runs at the receive
window's rate (up to --recv-buffer per round trip), not the link's.`,
		Example: `  objbench lab check --rtt 40ms
  objbench lab check cross-region --tls-version 1.2
  objbench lab check --rtt 20ms --bandwidth 100Mbit`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("lab check takes at most one PROFILE, got %q", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			profile := ""
			if len(args) == 1 {
				profile = args[0]
			}
			if samples <= 0 {
				return usagef("--samples must be positive")
			}
			return runLabCheck(cmd.Context(), &lf, profile, samples, jsonOut, stdout, stderr)
		},
	}
	lf.register(cmd.Flags(), false)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the rows as JSON")
	cmd.Flags().IntVar(&samples, "samples", 5, "requests per case; the median is compared")
	return cmd
}

func runLabCheck(ctx context.Context, lf *labFlags, profile string, samples int, jsonOut bool, stdout, stderr io.Writer) error {
	type result struct {
		TLS  string         `json:"tls"`
		Link string         `json:"link"`
		Rows []lab.CheckRow `json:"rows"`
	}
	var results []result
	modes := []bool{false, true}
	if lf.tls {
		modes = []bool{true}
	}
	if lf.noTLS {
		modes = []bool{false}
	}
	failed := 0
	for _, useTLS := range modes {
		f := *lf
		f.tls, f.noTLS = useTLS, !useTLS
		// Every row through every provider's client too: Azure when
		// Azurite is there to serve it.
		l, err := f.start(ctx, []string{"s3", "gcs", "azure"}, profile)
		if errors.Is(err, lab.ErrNoAzurite) {
			fmt.Fprintln(stderr, "lab check: no azurite-blob on PATH: the Azure client is not checked")
			l, err = f.start(ctx, []string{"s3", "gcs"}, profile)
		}
		if err != nil {
			return err
		}
		rows, err := l.Check(ctx, "s3", lab.CheckOptions{Samples: samples, Open: providers.Open})
		link := describeLink(l)
		l.Close()
		if err != nil {
			return err
		}
		mode := "plain HTTP"
		if useTLS {
			mode = "TLS " + f.tlsVersion
		}
		for _, r := range rows {
			if !r.Pass {
				failed++
			}
		}
		results = append(results, result{TLS: mode, Link: link, Rows: rows})
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"schema": "objbench/v1", "lab_check": results, "pass": failed == 0}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintf(stdout, "%s, %s\n", r.Link, r.TLS)
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "case\tphase\tclient\tRTTs\texpected ms\tmeasured ms\t± ms\tresult\t")
			for _, row := range r.Rows {
				// The raw request, then each SDK: the row passes only
				// when every client does.
				clients := row.Clients
				if len(clients) == 0 { // the network's TCP rows: the raw request only
					clients = []lab.ClientCheck{{Client: lab.RawClient, Expected: row.Expected, Measured: row.Measured, Tolerance: row.Tolerance, Pass: row.Pass}}
				}
				for i, c := range clients {
					name, phase := row.Case, row.Phase
					if i > 0 {
						name, phase = "", ""
					}
					expected, tol := fmt.Sprintf("%.1f", ms(c.Expected)), fmt.Sprintf("%.1f", ms(c.Tolerance))
					if row.Bound != "" {
						expected, tol = "≤ "+expected, "-"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%s\t%.1f\t%s\t%s\t\n", name, phase, c.Client, row.RTTs,
						expected, ms(c.Measured), tol, passFail(c.Pass))
				}
			}
			tw.Flush()
			fmt.Fprintln(stdout)
		}
	}
	if failed > 0 {
		return fmt.Errorf("lab check: %d row(s) outside tolerance", failed)
	}
	if !jsonOut {
		fmt.Fprintln(stdout, "lab check: every phase within tolerance")
	}
	return nil
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
