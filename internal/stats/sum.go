package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Sum adds encoded latency histograms (as Histograms, Drain and
// EncodeHistogram write them) bucket by bucket: the exact histogram of the
// union, never an average of percentiles. It decodes each into one dense
// array it keeps, so that merging thousands of shards' intervals allocates
// no histogram per input. Not safe for concurrent use.
type Sum struct {
	counts []int64
	total  int64
	// geometry of the fine histograms every recorder writes
	lowest, highest int64
	digits          int32
	zr              io.ReadCloser
	zw              *zlib.Writer
	zbuf            bytes.Buffer
	raw, payload    []byte
	// slow holds inputs of another geometry, decoded and merged the slow way.
	slow *hdr.Histogram
}

var fineCountsLen = len(hdr.New(1, maxMicros, fineDigits).Export().Counts)

// NewSum returns an empty Sum.
func NewSum() *Sum { return newSum(fineDigits) }

// newSum is a Sum of histograms of 1 µs to 1 h with digits significant
// figures (fineDigits for TTFB and total, phaseDigit for phases).
func newSum(digits int) *Sum {
	n := fineCountsLen
	if digits != fineDigits {
		n = len(hdr.New(1, maxMicros, digits).Export().Counts)
	}
	return &Sum{counts: make([]int64, n), lowest: 1, highest: maxMicros, digits: int32(digits)}
}

// Reset empties s for reuse.
func (s *Sum) Reset() {
	clear(s.counts)
	s.total = 0
	s.slow = nil
}

// Count is the number of values added.
func (s *Sum) Count() int64 {
	n := s.total
	if s.slow != nil {
		n += s.slow.TotalCount()
	}
	return n
}

// AddEncoded adds one encoded histogram (base64 text; "" adds nothing).
func (s *Sum) AddEncoded(enc string) error {
	if enc == "" {
		return nil
	}
	n := base64.StdEncoding.DecodedLen(len(enc))
	if cap(s.raw) < n {
		s.raw = make([]byte, n)
	}
	m, err := base64.StdEncoding.Decode(s.raw[:n], []byte(enc))
	if err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	return s.AddBinary(s.raw[:m])
}

// AddBinary adds one histogram in V2 compressed binary form.
func (s *Sum) AddBinary(raw []byte) error {
	p, fine, err := s.payloadOf(raw)
	if err != nil {
		return err
	}
	if !fine { // another geometry: the slow, general way
		h, err := hdr.Decode([]byte(base64.StdEncoding.EncodeToString(raw)))
		if err != nil {
			return fmt.Errorf("decode histogram: %w", err)
		}
		if s.slow == nil {
			s.slow = hdr.New(1, maxMicros, int(s.digits))
		}
		s.slow.Merge(h)
		return nil
	}
	return s.AddPayload(p)
}

// payloadOf decompresses a V2 binary histogram and returns its counts
// payload (valid until the next call) when it has the recorders' fine
// geometry; fine is false for another geometry.
func (s *Sum) payloadOf(raw []byte) (p []byte, fine bool, err error) {
	if len(raw) < 8 || int32(binary.BigEndian.Uint32(raw))&^0xf0 != hdr.V2CompressedEncodingCookieBase {
		return nil, false, fmt.Errorf("decode histogram: not a V2 compressed histogram")
	}
	clen := int(binary.BigEndian.Uint32(raw[4:8]))
	if clen < 0 || clen > len(raw)-8 {
		return nil, false, fmt.Errorf("decode histogram: truncated")
	}
	if s.zr == nil {
		if s.zr, err = zlib.NewReader(bytes.NewReader(raw[8 : 8+clen])); err != nil {
			return nil, false, fmt.Errorf("decode histogram: %w", err)
		}
	} else if err := s.zr.(zlib.Resetter).Reset(bytes.NewReader(raw[8:8+clen]), nil); err != nil {
		return nil, false, fmt.Errorf("decode histogram: %w", err)
	}
	var head [40]byte
	if _, err := io.ReadFull(s.zr, head[:]); err != nil {
		return nil, false, fmt.Errorf("decode histogram: %w", err)
	}
	plen := int(int32(binary.BigEndian.Uint32(head[4:8])))
	digits := int32(binary.BigEndian.Uint32(head[12:16]))
	lowest, highest := int64(binary.BigEndian.Uint64(head[16:24])), int64(binary.BigEndian.Uint64(head[24:32]))
	if digits != s.digits || lowest != s.lowest || highest != s.highest || plen < 0 || plen > 9*len(s.counts) {
		return nil, false, nil
	}
	if cap(s.payload) < plen {
		s.payload = make([]byte, plen)
	}
	p = s.payload[:plen]
	if _, err := io.ReadFull(s.zr, p); err != nil {
		return nil, false, fmt.Errorf("decode histogram: %w", err)
	}
	return p, true, nil
}

// AddPayload adds a histogram of the fine geometry given as its V2 counts
// payload (ZigZag LEB128 counts, negative for runs of zeros).
func (s *Sum) AddPayload(p []byte) error {
	idx := 0
	for len(p) > 0 {
		u, k := binary.Uvarint(p)
		if k <= 0 {
			return fmt.Errorf("decode histogram: corrupt payload")
		}
		p = p[k:]
		v := int64(u>>1) ^ -int64(u&1)
		if v < 0 {
			if v == math.MinInt64 || idx-int(v) > len(s.counts) {
				return fmt.Errorf("decode histogram: corrupt payload")
			}
			idx += int(-v)
			continue
		}
		if idx >= len(s.counts) {
			return fmt.Errorf("decode histogram: corrupt payload")
		}
		s.counts[idx] += v
		s.total += v
		idx++
	}
	return nil
}

// Histogram is the sum so far.
func (s *Sum) Histogram() *Histogram {
	h := hdr.Import(&hdr.Snapshot{LowestTrackableValue: s.lowest, HighestTrackableValue: s.highest,
		SignificantFigures: int64(s.digits), Counts: s.counts})
	if s.slow != nil {
		h.Merge(s.slow)
	}
	return &Histogram{h: h}
}

// Dist summarises the histogram in milliseconds.
func (h *Histogram) Dist() Dist { return dist(h.h) }

// Encode is the histogram as Histograms stores it (V2 compressed, base64).
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// HistogramOf records values (microseconds) into a histogram of the
// recorders' geometry: for tests that build the expected union.
func HistogramOf(micros []int64) *Histogram {
	h := hdr.New(1, maxMicros, fineDigits)
	for _, v := range micros {
		_ = h.RecordValue(min(max(v, 0), maxMicros))
	}
	return &Histogram{h: h}
}

// AppendBinary appends the sum in V2 compressed binary form, straight from
// its counts (no histogram is built): the merged intervals of a long run
// are thousands, each written once.
func (s *Sum) AppendBinary(dst []byte) ([]byte, error) {
	if s.slow != nil { // inputs of another geometry: the general way
		enc, err := s.Histogram().Encode()
		if err != nil {
			return dst, err
		}
		return appendBinary(dst, enc)
	}
	limit := len(s.counts)
	for limit > 0 && s.counts[limit-1] == 0 {
		limit--
	}
	s.payload = s.payload[:0]
	var tmp [binary.MaxVarintLen64]byte
	put := func(v int64) {
		n := binary.PutUvarint(tmp[:], uint64(v<<1)^uint64(v>>63))
		s.payload = append(s.payload, tmp[:n]...)
	}
	for i := 0; i < limit; {
		if c := s.counts[i]; c != 0 {
			put(c)
			i++
			continue
		}
		z := i
		for z < limit && s.counts[z] == 0 {
			z++
		}
		if z-i == 1 {
			put(0)
		} else {
			put(-int64(z - i))
		}
		i = z
	}
	var head [40]byte
	binary.BigEndian.PutUint32(head[0:], uint32(hdr.V2EncodingCookieBase|0x10))
	binary.BigEndian.PutUint32(head[4:], uint32(len(s.payload)))
	binary.BigEndian.PutUint32(head[12:], uint32(s.digits))
	binary.BigEndian.PutUint64(head[16:], uint64(s.lowest))
	binary.BigEndian.PutUint64(head[24:], uint64(s.highest))
	binary.BigEndian.PutUint64(head[32:], math.Float64bits(1))
	s.zbuf.Reset()
	if s.zw == nil {
		s.zw = zlib.NewWriter(&s.zbuf)
	} else {
		s.zw.Reset(&s.zbuf)
	}
	_, _ = s.zw.Write(head[:])
	_, _ = s.zw.Write(s.payload)
	if err := s.zw.Close(); err != nil {
		return dst, fmt.Errorf("encode histogram: %w", err)
	}
	var outer [8]byte
	binary.BigEndian.PutUint32(outer[0:], uint32(hdr.V2CompressedEncodingCookieBase|0x10))
	binary.BigEndian.PutUint32(outer[4:], uint32(s.zbuf.Len()))
	dst = append(dst, outer[:]...)
	return append(dst, s.zbuf.Bytes()...), nil
}

// appendBinary appends the binary form of a base64 V2 histogram.
func appendBinary(dst []byte, enc string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(b) < 8 {
		return dst, fmt.Errorf("encode histogram: not V2 base64")
	}
	return append(dst, b...), nil
}

// encodeHistogram is h (of the fine geometry) as EncodeFast writes it,
// through s (emptied first).
func (s *Sum) encodeHistogram(h *hdr.Histogram) (string, error) {
	snap := h.Export() // a copy of its counts, taken as s's
	if len(snap.Counts) != len(s.counts) || snap.SignificantFigures != int64(s.digits) {
		return "", fmt.Errorf("encode histogram: not of the fine geometry")
	}
	s.Reset()
	s.counts, s.total = snap.Counts, h.TotalCount()
	return s.EncodeFast()
}

// EncodeFast is the sum in the text form Histograms stores (base64 V2),
// written as AppendBinary does.
func (s *Sum) EncodeFast() (string, error) {
	b, err := s.AppendBinary(nil)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}
