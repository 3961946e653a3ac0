package wire

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/timeline"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

const (
	h2Preface      = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	maxH2Frame     = 1 << 20 // a header frame past this is not kept (the stream is lost)
	h2FrameData    = 0x0
	h2FrameHeaders = 0x1
	h2FrameRST     = 0x3
	h2FramePush    = 0x5
	h2FrameCont    = 0x9
	h2FlagEnd      = 0x1
)

// h2side is one direction of an HTTP/2 connection: its frames cut from
// the bytes, its HPACK table, and the header block being gathered.
type h2side struct {
	skip   int // preface bytes to pass over
	hdr    [9]byte
	nh     int
	left   int
	typ    byte
	flags  byte
	stream uint32
	keep   bool
	frame  []byte
	t0     time.Time
	src    bytes.Reader
	fr     *http2.Framer
	dec    *hpack.Decoder
	fields []hpack.HeaderField
	// the block being gathered: its stream, whether the stream ends with
	// it, and when its first frame began
	blockStream uint32
	blockEnd    bool
	blockT0     time.Time
	broken      bool
}

// h2 reads HTTP/2 both ways: each client stream is a request.
type h2 struct {
	side    [2]h2side
	streams map[uint32]*timeline.Request
	reqs    []*timeline.Request
}

func newH2() *h2 {
	h := &h2{streams: map[uint32]*timeline.Request{}}
	h.side[up].skip = len(h2Preface)
	for i := range h.side {
		s := &h.side[i]
		s.fr = http2.NewFramer(io.Discard, &s.src)
		s.fr.SetMaxReadFrameSize(maxH2Frame)
		s.dec = hpack.NewDecoder(4096, func(f hpack.HeaderField) { s.fields = append(s.fields, f) })
		s.dec.SetAllowedMaxDynamicTableSize(1 << 20)
		s.dec.SetMaxStringLength(1 << 16)
	}
	return h
}

func (h *h2) requests() []*timeline.Request { return h.reqs }

func (h *h2) feed(dir int, b []byte, t0, t1 time.Time) {
	s := &h.side[dir]
	for len(b) > 0 && !s.broken {
		if s.skip > 0 {
			k := min(s.skip, len(b))
			s.skip -= k
			b = b[k:]
			continue
		}
		if s.nh < 9 {
			if s.nh == 0 {
				s.t0 = t0
			}
			k := copy(s.hdr[s.nh:], b)
			s.nh += k
			b = b[k:]
			if s.nh < 9 {
				return
			}
			s.left = int(s.hdr[0])<<16 | int(s.hdr[1])<<8 | int(s.hdr[2])
			s.typ, s.flags = s.hdr[3], s.hdr[4]
			s.stream = (uint32(s.hdr[5])<<24 | uint32(s.hdr[6])<<16 | uint32(s.hdr[7])<<8 | uint32(s.hdr[8])) & 0x7fffffff
			s.keep = s.typ == h2FrameHeaders || s.typ == h2FrameCont || s.typ == h2FramePush || s.typ == h2FrameRST
			if s.keep && s.left > maxH2Frame {
				s.broken = true
				return
			}
			s.frame = append(s.frame[:0], s.hdr[:]...)
			if s.typ == h2FrameData && s.left > 0 {
				h.data(dir, s.stream, t0)
			}
		}
		k := min(s.left, len(b))
		if s.keep {
			s.frame = append(s.frame, b[:k]...)
		} else if s.typ == h2FrameData {
			h.count(dir, s.stream, int64(k))
		}
		s.left -= k
		b = b[k:]
		if s.left == 0 {
			s.nh = 0
			h.frameDone(dir, s, t1)
		}
	}
}

// data notes a DATA frame's first byte on a stream.
func (h *h2) data(dir int, id uint32, t time.Time) {
	if q := h.streams[id]; q != nil && dir == up && q.BodySent.IsZero() {
		q.BodySent = t
	}
}

func (h *h2) count(dir int, id uint32, n int64) {
	q := h.streams[id]
	if q == nil {
		return
	}
	if dir == up {
		q.BytesIn += n
	} else {
		q.BytesOut += n
	}
}

func (h *h2) frameDone(dir int, s *h2side, t1 time.Time) {
	q := h.streams[s.stream]
	switch s.typ {
	case h2FrameData:
		if q != nil && s.flags&h2FlagEnd != 0 {
			if dir == up {
				q.BodyDone = t1
			} else {
				q.Done = t1
				delete(h.streams, s.stream)
			}
		}
		return
	case h2FrameHeaders, h2FrameCont, h2FramePush, h2FrameRST:
	default:
		return
	}
	s.src.Reset(s.frame)
	f, err := s.fr.ReadFrame()
	if err != nil {
		s.broken = true
		return
	}
	var frag []byte
	ended := false
	switch f := f.(type) {
	case *http2.RSTStreamFrame:
		if q != nil && q.Done.IsZero() {
			q.Done = t1
		}
		delete(h.streams, s.stream)
		return
	case *http2.HeadersFrame:
		s.blockStream, s.blockEnd, s.blockT0, s.fields = f.StreamID, f.StreamEnded(), s.t0, s.fields[:0]
		frag, ended = f.HeaderBlockFragment(), f.HeadersEnded()
	case *http2.PushPromiseFrame:
		s.blockStream, s.blockEnd, s.blockT0, s.fields = 0, false, s.t0, s.fields[:0]
		frag, ended = f.HeaderBlockFragment(), f.HeadersEnded()
	case *http2.ContinuationFrame:
		frag, ended = f.HeaderBlockFragment(), f.HeadersEnded()
	default:
		return
	}
	if _, err := s.dec.Write(frag); err != nil {
		s.broken = true
		return
	}
	if !ended {
		return
	}
	if err := s.dec.Close(); err != nil {
		s.broken = true
		return
	}
	if s.blockStream != 0 {
		h.headers(dir, s.blockStream, s.fields, s.blockEnd, s.blockT0, t1)
	}
	s.fields = s.fields[:0]
}

// headers takes a whole header block: a request's (a new client stream),
// a response's, or trailers.
func (h *h2) headers(dir int, id uint32, fields []hpack.HeaderField, end bool, t0, t1 time.Time) {
	q := h.streams[id]
	hdr := http.Header{}
	pseudo := map[string]string{}
	for _, f := range fields {
		if strings.HasPrefix(f.Name, ":") {
			pseudo[f.Name] = f.Value
		} else {
			hdr.Add(f.Name, f.Value)
		}
	}
	if dir == up {
		if q != nil { // trailers
			if end {
				q.BodyDone = t1
			}
			return
		}
		path, query := pseudo[":path"], ""
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path, query = path[:i], path[i+1:]
		}
		if u, err := url.Parse(path); err == nil {
			path = u.EscapedPath()
		}
		cl := int64(-1)
		if v := hdr.Get("Content-Length"); v != "" {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				cl = n
			}
		} else if end {
			cl = 0
		}
		q = &timeline.Request{Method: pseudo[":method"], Path: path, Query: query, Proto: "HTTP/2.0",
			Header: timeline.Notable(hdr), ContentLength: cl, Host: pseudo[":authority"], Stream: id,
			Sent: t0, Arrived: t1, Expect: strings.EqualFold(hdr.Get("Expect"), "100-continue")}
		h.streams[id] = q
		h.reqs = append(h.reqs, q)
		return
	}
	if q == nil {
		return
	}
	st, _ := strconv.Atoi(pseudo[":status"])
	switch {
	case st >= 100 && st < 200:
		if st == http.StatusContinue && q.Continue.IsZero() {
			q.Continue = t0
		}
		return
	case q.FirstByte.IsZero() && st > 0:
		q.FirstByte, q.Status = t0, st
		q.ResponseHeader, q.RequestID = responseNotable(hdr)
		q.Done = t1
	}
	if end {
		q.Done = t1
		delete(h.streams, id) // the stream is over: its map entry goes
	}
}
