package explain

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/realpath"
	"github.com/objbench/objbench/internal/usage"
	"github.com/objbench/objbench/internal/wire"
)

// RealCommand is explain --real's and --pcap-in's command line as plain
// settings.
type RealCommand struct {
	Program
	// Real is --real: run the program on its real path.
	Real bool
	// Wire is the impairment on top of the real path.
	Wire netem.Config
	// Pcap is --pcap: where the live capture is written.
	Pcap string
	// PcapIn is --pcap-in: a capture to explain instead of running a
	// program; KeyLog is --keylog, its TLS keys (beside those its
	// Decryption Secrets Blocks carry).
	PcapIn, KeyLog string
}

// check says which of the real path's flags do not go together.
func (c RealCommand) check() error {
	switch {
	case c.Real && c.PcapIn != "":
		return usage.Errorf("--real runs a program, --pcap-in reads a capture: give one")
	case c.Pcap != "" && !c.Real:
		return usage.Errorf("--pcap writes the capture of a --real run")
	case c.KeyLog != "" && c.PcapIn == "":
		return usage.Errorf("--keylog goes with --pcap-in (the live path reads the program's own key log)")
	}
	return nil
}

// ExecuteReal runs the program on its real path and explains it (RunReal),
// or explains the capture PcapIn.
func ExecuteReal(ctx context.Context, c RealCommand) (*document.ExplainDocument, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	prices, err := c.prices(nil)
	if err != nil {
		return nil, err
	}
	if c.PcapIn != "" {
		d, err := ExplainPcap(c.PcapIn, c.KeyLog, prices)
		if err != nil {
			return nil, err
		}
		d.RunID, d.Labels = document.NewRunID(), c.Labels
		d.Options = map[string]string{"pcap_in": "given"}
		return d, nil
	}
	out, closeOut, err := c.output()
	if err != nil {
		return nil, err
	}
	return RunReal(ctx, RealConfig{Argv: c.Argv, Timeout: c.Timeout, Stdin: c.Stdin, Output: out, CloseOutput: closeOut,
		Prices: prices, RunID: document.NewRunID(), Labels: c.Labels, Wire: c.Wire, Pcap: c.Pcap, Notice: c.Stderr})
}

// ErrEmptyCapture says a capture held no connection to explain.
var ErrEmptyCapture = errors.New("no TCP connection in the capture")

// ExplainPcap explains a capture taken elsewhere (pcap or pcapng), with
// the key log at keyLog ("" for none) and the keys its Decryption Secrets
// Blocks carry.
func ExplainPcap(path, keyLog string, prices analysis.Prices) (*document.ExplainDocument, error) {
	res, rtt, err := readCapture(path, keyLog)
	if err != nil {
		return nil, err
	}
	if len(res.Conns) == 0 {
		return nil, fmt.Errorf("--pcap-in %s: %w", path, ErrEmptyCapture)
	}
	return FromWire(res, WireMeta{Source: SourcePcap, RTT: rtt}, prices), nil
}

// readCapture decodes a capture file, and measures its round trip.
func readCapture(path, keyLog string) (wire.Result, time.Duration, error) {
	dec := wire.NewDecoder(wire.Options{})
	meter := realpath.NewRTTMeter()
	if keyLog != "" {
		b, err := os.ReadFile(keyLog)
		if err != nil {
			return wire.Result{}, 0, fmt.Errorf("--keylog: %w", err)
		}
		if err := dec.AddKeyLog(bytes.NewReader(b)); err != nil {
			return wire.Result{}, 0, fmt.Errorf("--keylog: %w", err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return wire.Result{}, 0, fmt.Errorf("--pcap-in: %w", err)
	}
	defer f.Close()
	keys, err := wire.ReadPcap(bufio.NewReaderSize(f, 1<<20), func(p wire.Packet) error {
		dec.Packet(p)
		meter.Packet(p.Time, p.Data)
		return nil
	})
	if err != nil {
		return wire.Result{}, 0, fmt.Errorf("--pcap-in %s: %w", path, err)
	}
	if len(keys) > 0 {
		if err := dec.AddKeyLog(bytes.NewReader(keys)); err != nil {
			return wire.Result{}, 0, fmt.Errorf("--pcap-in: keys: %w", err)
		}
	}
	return dec.Result(), meter.Min(), nil
}
