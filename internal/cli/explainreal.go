package cli

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/explain"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/usage"
)

// realFlags are explain's real-path flags: --real, --pcap, --pcap-in, --keylog.
type realFlags struct {
	real           bool
	pcap           string
	pcapIn, keyLog string
}

func (r *realFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&r.real, "real", false, "no lab: run the program on its real path (its own endpoints, its environment kept) in a network namespace whose packets objbench captures, "+
		"and explain its traffic as the wire shows it (TLS read with the key log it writes to SSLKEYLOGFILE); --rtt, --bandwidth, --loss add that impairment on top; "+
		"the host's loopback is at $OBJBENCH_HOST")
	fs.StringVar(&r.pcap, "pcap", "", "with --real: also write the capture to FILE as pcapng, the TLS keys in a Decryption Secrets Block (a secret: mode 0600)")
	fs.StringVar(&r.pcapIn, "pcap-in", "", "no lab, no program: explain a capture taken elsewhere (pcap or pcapng, e.g. tcpdump -w)")
	fs.StringVar(&r.keyLog, "keylog", "", "with --pcap-in: the TLS key log (SSLKEYLOGFILE format) to read its connections with")
}

func (r *realFlags) on() bool { return r.real || r.pcapIn != "" || r.pcap != "" || r.keyLog != "" }

// explainArgs are explain's arguments: PROFILE then -- COMMAND, or none
// with --pcap-in.
func explainArgs(r *realFlags) cobra.PositionalArgs {
	withCommand := profileThenCommand("explain", "objbench explain cross-region -- python3 upload.py")
	return func(cmd *cobra.Command, args []string) error {
		if r.pcapIn != "" {
			if len(args) > 0 {
				return usage.Errorf("--pcap-in explains a capture: it takes no PROFILE or command, got %q", strings.Join(args, " "))
			}
			return nil
		}
		return withCommand(cmd, args)
	}
}

func runExplainReal(ctx context.Context, g *globals, f *explainFlags, fs *pflag.FlagSet, profile string, argv []string, stdout, stderr io.Writer) error {
	r := &f.real
	// The impairment --rtt and the like add on top of the real path; the
	// lab's other flags refused.
	w, err := lab.Settings(f.lab).RealWire(givenLabFields(fs), profile)
	if err != nil {
		return usage.Wrap(err)
	}
	labels, err := f.save.check()
	if err != nil {
		return err
	}
	d, err := explain.ExecuteReal(ctx, explain.RealCommand{Program: f.program(argv, labels, stderr),
		Real: r.real, Wire: w, Pcap: r.pcap, PcapIn: r.pcapIn, KeyLog: r.keyLog})
	return explainOut(g, f, d, err, argv, r.pcapIn != "", stdout, stderr)
}
