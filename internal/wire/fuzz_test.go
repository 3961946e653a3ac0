package wire

import (
	"bytes"
	"testing"
)

// FuzzDecoder: a capture with one packet replaced by anything neither
// panics nor stops the decoder (a capture from anywhere is input).
func FuzzDecoder(f *testing.F) {
	ps, keylog := synthConn(f, 40000)
	for _, p := range ps[:8] {
		f.Add(p.Data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(Options{})
		_ = d.AddKeyLog(bytes.NewReader(keylog))
		k := len(data) % len(ps)
		for i, p := range ps {
			if i == k {
				p.Data = data
			}
			d.Packet(p)
		}
		_ = d.Result()
	})
}

// FuzzReadPcap: any bytes as a capture file return an error or packets,
// never a panic.
func FuzzReadPcap(f *testing.F) {
	ps, keylog := synthConn(f, 2000)
	var buf bytes.Buffer
	w, err := NewPcapngWriter(&buf)
	if err != nil {
		f.Fatal(err)
	}
	_ = w.WriteKeyLog(keylog)
	for _, p := range ps {
		_ = w.WritePacket(p)
	}
	_ = w.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(Options{})
		_ = d.ReadPcap(bytes.NewReader(data))
		_ = d.Result()
	})
}
