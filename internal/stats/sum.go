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
	raw, payload    []byte
	// slow holds inputs of another geometry, decoded and merged the slow way.
	slow *hdr.Histogram
}

var fineCountsLen = len(hdr.New(1, maxMicros, fineDigits).Export().Counts)

// NewSum returns an empty Sum.
func NewSum() *Sum {
	return &Sum{counts: make([]int64, fineCountsLen), lowest: 1, highest: maxMicros, digits: fineDigits}
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

// AddEncoded adds one encoded histogram ("" adds nothing).
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
	raw := s.raw[:m]
	if len(raw) < 8 || int32(binary.BigEndian.Uint32(raw))&^0xf0 != hdr.V2CompressedEncodingCookieBase {
		return fmt.Errorf("decode histogram: not a V2 compressed histogram")
	}
	clen := int(binary.BigEndian.Uint32(raw[4:8]))
	if clen < 0 || clen > len(raw)-8 {
		return fmt.Errorf("decode histogram: truncated")
	}
	if s.zr == nil {
		if s.zr, err = zlib.NewReader(bytes.NewReader(raw[8 : 8+clen])); err != nil {
			return fmt.Errorf("decode histogram: %w", err)
		}
	} else if err := s.zr.(zlib.Resetter).Reset(bytes.NewReader(raw[8:8+clen]), nil); err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	var head [40]byte
	if _, err := io.ReadFull(s.zr, head[:]); err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	plen := int(int32(binary.BigEndian.Uint32(head[4:8])))
	digits := int32(binary.BigEndian.Uint32(head[12:16]))
	lowest, highest := int64(binary.BigEndian.Uint64(head[16:24])), int64(binary.BigEndian.Uint64(head[24:32]))
	if digits != s.digits || lowest != s.lowest || highest != s.highest || plen < 0 || plen > 9*len(s.counts) {
		h, err := hdr.Decode([]byte(enc)) // another geometry: the slow, general way
		if err != nil {
			return fmt.Errorf("decode histogram: %w", err)
		}
		if s.slow == nil {
			s.slow = hdr.New(1, maxMicros, fineDigits)
		}
		s.slow.Merge(h)
		return nil
	}
	if cap(s.payload) < plen {
		s.payload = make([]byte, plen)
	}
	p := s.payload[:plen]
	if _, err := io.ReadFull(s.zr, p); err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
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
