package wire

import (
	"errors"
	"io"
)

// PcapngWriter writes a capture as pcapng (raw IP packets), with the TLS
// key log in Decryption Secrets Blocks so Wireshark and tshark open it
// decrypted. The capture holds secrets: write it to a file only its owner
// reads (0600).
type PcapngWriter struct {
	w io.Writer
}

// NewPcapngWriter writes the section and interface headers to w.
func NewPcapngWriter(w io.Writer) (*PcapngWriter, error) {
	return &PcapngWriter{w: w}, nil
}

// WritePacket writes one packet.
func (w *PcapngWriter) WritePacket(p Packet) error { return errors.New("wire: not yet") }

// WriteKeyLog writes key log lines (SSLKEYLOGFILE format) as a Decryption
// Secrets Block; write them before the packets they decrypt.
func (w *PcapngWriter) WriteKeyLog(keylog []byte) error { return errors.New("wire: not yet") }

// Close flushes what is buffered; it does not close the underlying writer.
func (w *PcapngWriter) Close() error { return nil }

// ReadPcap reads a pcap or pcapng capture (raw IP or Ethernet link types),
// calling fn for each IP packet, and returns the TLS key log its
// Decryption Secrets Blocks carry.
func ReadPcap(r io.Reader, fn func(Packet) error) (keylog []byte, err error) {
	return nil, errors.New("wire: not yet")
}
