package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// PcapngWriter writes a capture as pcapng (raw IP packets), with the TLS
// key log in Decryption Secrets Blocks so Wireshark and tshark open it
// decrypted. The capture holds secrets: write it to a file only its owner
// reads (0600).
type PcapngWriter struct {
	w *pcapgo.NgWriter
}

// NewPcapngWriter writes the section and interface headers to w.
func NewPcapngWriter(w io.Writer) (*PcapngWriter, error) {
	intf := pcapgo.DefaultNgInterface
	intf.Name, intf.LinkType = "objbench", layers.LinkTypeRaw
	opts := pcapgo.DefaultNgWriterOptions
	opts.SectionInfo.Application = "objbench"
	nw, err := pcapgo.NewNgWriterInterface(w, intf, opts)
	if err != nil {
		return nil, fmt.Errorf("wire: pcapng: %w", err)
	}
	return &PcapngWriter{w: nw}, nil
}

// WritePacket writes one packet.
func (w *PcapngWriter) WritePacket(p Packet) error {
	ci := gopacket.CaptureInfo{Timestamp: p.Time, CaptureLength: len(p.Data), Length: len(p.Data)}
	if err := w.w.WritePacket(ci, p.Data); err != nil {
		return fmt.Errorf("wire: pcapng: %w", err)
	}
	return nil
}

// WriteKeyLog writes key log lines (SSLKEYLOGFILE format) as a Decryption
// Secrets Block; write them before the packets they decrypt.
func (w *PcapngWriter) WriteKeyLog(keylog []byte) error {
	if len(keylog) == 0 {
		return nil
	}
	if err := w.w.WriteDecryptionSecretsBlock(pcapgo.DSB_SECRETS_TYPE_TLS, keylog); err != nil {
		return fmt.Errorf("wire: pcapng: %w", err)
	}
	return nil
}

// Close flushes what is buffered; it does not close the underlying writer.
func (w *PcapngWriter) Close() error {
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("wire: pcapng: %w", err)
	}
	return nil
}

// ReadPcap reads a pcap or pcapng capture (raw IP, Ethernet, Linux
// cooked or loopback link types), calling fn for each IP packet, and
// returns the TLS key log its Decryption Secrets Blocks carry.
func ReadPcap(r io.Reader, fn func(Packet) error) (keylog []byte, err error) {
	var keys []byte
	err = readPcap(r, fn, func(b []byte) error { keys = append(keys, b...); return nil })
	return keys, err
}

// ReadPcapStream reads a capture as ReadPcap does, handing each
// Decryption Secrets Block's key log to keylog as it is met, before the
// packets after it: a decoder given it through AddKeyLog decrypts every
// record as it comes, keeping none waiting (which a key log given after
// the packets needs, within its bound).
func ReadPcapStream(r io.Reader, packet func(Packet) error, keylog func([]byte) error) error {
	return readPcap(r, packet, keylog)
}

// ReadPcap feeds a capture to the decoder, its key log included as it
// comes (a pcapng's Decryption Secrets Blocks precede the packets they
// decrypt), so no record waits for its keys.
func (d *Decoder) ReadPcap(r io.Reader) error {
	return readPcap(r, func(p Packet) error { d.Packet(p); return nil }, func(b []byte) error {
		return d.AddKeyLog(bytes.NewReader(b))
	})
}

const pcapngMagic = 0x0A0D0D0A

func readPcap(r io.Reader, fn func(Packet) error, keys func([]byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(4)
	if err != nil {
		return fmt.Errorf("wire: reading a capture: %w", err)
	}
	type source interface {
		ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	}
	var src source
	var link func(ci gopacket.CaptureInfo) layers.LinkType
	sc := &dsbScanner{}
	if binary.LittleEndian.Uint32(magic) == pcapngMagic {
		ng, err := pcapgo.NewNgReader(io.TeeReader(br, sc), pcapgo.NgReaderOptions{})
		if err != nil {
			return fmt.Errorf("wire: reading a pcapng: %w", err)
		}
		src = ng
		link = func(ci gopacket.CaptureInfo) layers.LinkType {
			if i, err := ng.Interface(ci.InterfaceIndex); err == nil {
				return i.LinkType
			}
			return ng.LinkType()
		}
	} else {
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return fmt.Errorf("wire: reading a pcap: %w", err)
		}
		src = pr
		link = func(gopacket.CaptureInfo) layers.LinkType { return pr.LinkType() }
	}
	for {
		data, ci, err := src.ReadPacketData()
		for _, k := range sc.take() {
			if err := keys(k); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("wire: reading a capture: %w", err)
		}
		ip := ipOf(link(ci), data)
		if ip == nil {
			continue
		}
		if err := fn(Packet{Time: ci.Timestamp, Data: ip}); err != nil {
			return err
		}
	}
}

// ipOf is the IP packet a frame of a link type carries; nil for none.
func ipOf(lt layers.LinkType, b []byte) []byte {
	var proto uint16
	switch lt {
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, 12: // 12: raw IP on some systems
		return b
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if len(b) < 4 {
			return nil
		}
		return b[4:]
	case layers.LinkTypeEthernet:
		if len(b) < 14 {
			return nil
		}
		proto, b = binary.BigEndian.Uint16(b[12:]), b[14:]
		for (proto == 0x8100 || proto == 0x88a8) && len(b) >= 4 { // VLAN tags
			proto, b = binary.BigEndian.Uint16(b[2:]), b[4:]
		}
	case layers.LinkTypeLinuxSLL:
		if len(b) < 16 {
			return nil
		}
		proto, b = binary.BigEndian.Uint16(b[14:]), b[16:]
	case 276: // Linux cooked capture v2
		if len(b) < 20 {
			return nil
		}
		proto, b = binary.BigEndian.Uint16(b[0:]), b[20:]
	default:
		return nil
	}
	if proto != 0x0800 && proto != 0x86dd {
		return nil
	}
	return b
}

// dsbScanner follows the pcapng blocks as the reader reads them and
// keeps the TLS key logs of Decryption Secrets Blocks (the library's
// reader reads them but does not give them out).
type dsbScanner struct {
	hdr   [12]byte
	nh    int
	big   bool // the section's byte order
	left  int
	dsb   bool
	block []byte
	found [][]byte
}

const maxDSB = 16 << 20

func (s *dsbScanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.nh < 12 {
			k := copy(s.hdr[s.nh:], p)
			s.nh += k
			p = p[k:]
			if s.nh < 12 {
				break
			}
			order := binary.ByteOrder(binary.LittleEndian)
			if binary.LittleEndian.Uint32(s.hdr[:4]) == pcapngMagic {
				s.big = binary.BigEndian.Uint32(s.hdr[8:]) == 0x1A2B3C4D
			}
			if s.big {
				order = binary.BigEndian
			}
			total := int(order.Uint32(s.hdr[4:]))
			if total < 12 {
				s.nh = 0 // not a block: give up following quietly; the reader says what is wrong
				s.left = 1 << 62
				continue
			}
			s.left = total - 12
			s.dsb = order.Uint32(s.hdr[:4]) == 0x0A && total <= maxDSB
			if s.dsb {
				s.block = append(s.block[:0], s.hdr[8:]...)
			}
		}
		k := min(s.left, len(p))
		if s.dsb {
			s.block = append(s.block, p[:k]...)
		}
		s.left -= k
		p = p[k:]
		if s.left == 0 {
			s.nh = 0
			if s.dsb {
				s.parse()
			}
		}
	}
	return n, nil
}

// parse reads a whole Decryption Secrets Block's body (from its secrets
// type on).
func (s *dsbScanner) parse() {
	order := binary.ByteOrder(binary.LittleEndian)
	if s.big {
		order = binary.BigEndian
	}
	b := s.block
	if len(b) < 8 || order.Uint32(b) != pcapgo.DSB_SECRETS_TYPE_TLS {
		return
	}
	n := int(order.Uint32(b[4:]))
	if n > len(b)-8 {
		return
	}
	s.found = append(s.found, append([]byte(nil), b[8:8+n]...))
}

func (s *dsbScanner) take() [][]byte {
	f := s.found
	s.found = nil
	return f
}
