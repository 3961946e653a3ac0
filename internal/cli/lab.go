package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/explain"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/report"
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
  objbench lab cross-region --record            # explain whatever connects, printed at Ctrl-C
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
	cmd.Flags().BoolVar(&lf.record, "record", false, "record every connection and request the S3 and GCS endpoints see, and print the explanation (as 'objbench explain') when the lab stops")
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
	report.WriteLab(stdout, l, apis, caFile)
	started := time.Now()
	<-ctx.Done()
	fmt.Fprintln(stdout, "objbench lab: stopping")
	if lf.record {
		d := explain.FromLab(l, nil, 0, started, time.Now(), analysis.DefaultPrices(), "")
		if n := l.Recorder().Dropped(); n > 0 {
			fmt.Fprintf(stdout, "objbench lab: the record kept the first requests only; %d more were served, not recorded\n", n)
		}
		if d.Explain.Requests == 0 {
			fmt.Fprintln(stdout, "objbench lab: no request reached the lab")
			return nil
		}
		return report.WriteExplainText(stdout, d)
	}
	return nil
}
