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
)

func newLabCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	cmd := &cobra.Command{
		Use:   "lab [PROFILE]",
		Short: "Serve the embedded S3, GCS (and Azure) endpoints behind an emulated link, in the foreground",
		Long: `lab serves S3- and GCS-compatible endpoints (and Azure through Azurite, when azurite-blob
is on PATH) on 127.0.0.1 behind an emulated network link, for any client: the AWS CLI,
curl, your own program, or objbench in another terminal. Ctrl-C stops it.

Profiles (round-trip time; adjust with --rtt, --jitter, --bandwidth):
` + profileHelp() + `
The link delays data by half the round trip each way and caps bandwidth in a user-space
proxy (toxiproxy). A TCP handshake through a local proxy costs nothing, so objbench adds
one round trip in its own dialer; other clients see the link on data only.`,
		Example: `  objbench lab                                  # local profile, free ports
  objbench lab cross-region --tls               # 80 ms round trips, HTTPS with a printed CA file
  objbench lab --rtt 40ms --bandwidth 100Mbit --port 9000
  objbench lab --fault reset=2%,slowdown=5%     # misbehave on purpose
  objbench lab check --rtt 40ms                 # prove the link model on this machine`,
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
	return fmt.Sprintf("profile %s: round trip %s, jitter %s, bandwidth %s", l.Profile(), k.RTT, k.Jitter, bw)
}

func printLab(w io.Writer, l *lab.Lab, apis []string, caFile string) {
	fmt.Fprintf(w, "objbench lab: %s\n\n", describeLink(l))
	s3 := l.Endpoint("s3")
	creds := l.Credentials("s3")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "API\tENDPOINT\tBUCKET\tAUTH")
	fmt.Fprintf(tw, "s3\t%s\t%s\taccess key %s, secret %s (lab-only keys), region us-east-1\n", s3, lab.Bucket, creds.AccessKeyID, creds.SecretAccessKey)
	fmt.Fprintf(tw, "gcs\t%s\t%s\tnone (JSON API; STORAGE_EMULATOR_HOST=%s)\n", l.Endpoint("gcs"), lab.Bucket, strings.TrimPrefix(strings.TrimPrefix(l.Endpoint("gcs"), "http://"), "https://"))
	if len(apis) > 2 {
		fmt.Fprintf(tw, "azure\t%s\t%s\tAZURE_STORAGE_CONNECTION_STRING='%s'\n", l.Endpoint("azure"), lab.Bucket, l.AzureConnectionString())
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
		curlCA, s3, lab.Bucket, curlCA, l.Endpoint("gcs"), lab.Bucket, lab.Bucket, s3)
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
Exit status 1 when any row fails.`,
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
	failed := 0
	for _, useTLS := range modes {
		f := *lf
		f.tls = useTLS
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
				for i, c := range row.Clients {
					name, phase := row.Case, row.Phase
					if i > 0 {
						name, phase = "", ""
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%.1f\t%.1f\t%.1f\t%s\t\n", name, phase, c.Client, row.RTTs,
						ms(c.Expected), ms(c.Measured), ms(c.Tolerance), passFail(c.Pass))
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
