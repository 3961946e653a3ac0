package wire

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/timeline"
)

// Directions of a connection's bytes.
const (
	up   = 0 // client to server
	down = 1 // server to client
)

// maxHead bounds a request's or response's head kept while it arrives.
const maxHead = 1 << 16

// responseHeaders are the response headers a request keeps.
var responseHeaders = []string{"X-Amz-Request-Id", "X-Amz-Id-2", "X-Ms-Request-Id", "X-Goog-Request-Id", "X-Guploader-Uploadid",
	"X-Request-Id", "Location", "Retry-After", "X-Amz-Bucket-Region", "Content-Range", "Content-Length", "Content-Type", "Server"}

// requestIDHeaders name the server's request id, most specific first.
var requestIDHeaders = []string{"X-Amz-Request-Id", "X-Ms-Request-Id", "X-Goog-Request-Id", "X-Guploader-Uploadid", "X-Request-Id"}

func responseNotable(h http.Header) (http.Header, string) {
	out := http.Header{}
	for _, k := range responseHeaders {
		if v := h.Values(k); len(v) > 0 {
			out[k] = append([]string(nil), v...)
		}
	}
	id := ""
	for _, k := range requestIDHeaders {
		if v := h.Get(k); v != "" {
			id = v
			break
		}
	}
	return out, id
}

// body follows one message's body framing, counting its bytes: a known
// length, chunked, or until the connection closes.
type body struct {
	left    int64 // bytes of the body (or of the current chunk) to go
	chunked bool
	toClose bool
	// chunk parsing: 0 size line, 1 data, 2 CRLF after data, 3 trailer
	state int
	line  []byte
}

// feed takes b's body bytes; it returns how many of b were the body's,
// the decoded body bytes among them, and whether the body ended.
func (bd *body) feed(b []byte) (used int, data int64, done bool) {
	if bd.toClose {
		return len(b), int64(len(b)), false
	}
	if !bd.chunked {
		k := int(min(int64(len(b)), bd.left))
		bd.left -= int64(k)
		return k, int64(k), bd.left == 0
	}
	for used < len(b) {
		switch bd.state {
		case 1:
			k := int(min(int64(len(b)-used), bd.left))
			used += k
			data += int64(k)
			bd.left -= int64(k)
			if bd.left == 0 {
				bd.state = 2
			}
		default: // a line: the size, the CRLF after data, or a trailer line
			i := bytes.IndexByte(b[used:], '\n')
			if i < 0 {
				if len(bd.line) < 4096 {
					bd.line = append(bd.line, b[used:]...)
				}
				return len(b), data, false
			}
			line := append(bd.line, b[used:used+i]...)
			bd.line = bd.line[:0]
			used += i + 1
			l := strings.TrimSpace(string(line))
			switch bd.state {
			case 0:
				if j := strings.IndexByte(l, ';'); j >= 0 {
					l = l[:j]
				}
				n, err := strconv.ParseInt(strings.TrimSpace(l), 16, 64)
				if err != nil || n < 0 {
					return used, data, true // unreadable framing: end the body here
				}
				if n == 0 {
					bd.state = 3
				} else {
					bd.left, bd.state = n, 1
				}
			case 2:
				bd.state = 0
			case 3:
				if l == "" {
					return used, data, true
				}
			}
		}
	}
	return used, data, false
}

// h1 reads HTTP/1.1 both ways: requests from the client's bytes,
// responses from the server's, paired in order.
type h1 struct {
	reqs []*timeline.Request
	// client side
	chead   []byte
	cstart  time.Time
	cbody   *body
	creq    *timeline.Request
	cbroken bool
	// server side
	next    int // the request the next response answers
	shead   []byte
	sstart  time.Time
	sbody   *body
	sreq    *timeline.Request
	sbroken bool
	// idle since: the last response's end
	lastDone time.Time
}

func (h *h1) requests() []*timeline.Request { return h.reqs }

func (h *h1) feed(dir int, b []byte, t0, t1 time.Time) {
	if dir == up {
		h.feedUp(b, t0, t1)
	} else {
		h.feedDown(b, t0, t1)
	}
}

// headEnd finds the end of a head being gathered in buf (with b after
// it): the bytes of b it took, and whether the head is whole.
func headEnd(buf *[]byte, b []byte) (int, bool) {
	old := len(*buf)
	*buf = append(*buf, b...)
	from := max(0, old-3)
	i := bytes.Index((*buf)[from:], []byte("\r\n\r\n"))
	if i < 0 {
		if len(*buf) > maxHead {
			return len(b), false
		}
		return len(b), false
	}
	end := from + i + 4
	*buf = (*buf)[:end]
	return end - old, true
}

func (h *h1) feedUp(b []byte, t0, t1 time.Time) {
	for len(b) > 0 && !h.cbroken {
		if h.cbody != nil {
			used, n, done := h.cbody.feed(b)
			if n > 0 && h.creq.BodySent.IsZero() {
				h.creq.BodySent = t0
			}
			h.creq.BytesIn += n
			b = b[used:]
			if done {
				h.creq.BodyDone = t1
				h.cbody = nil
			}
			continue
		}
		if len(h.chead) == 0 {
			h.cstart = t0
		}
		used, whole := headEnd(&h.chead, b)
		b = b[used:]
		if !whole {
			if len(h.chead) > maxHead {
				h.cbroken = true
			}
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(h.chead)))
		h.chead = h.chead[:0]
		if err != nil {
			h.cbroken = true
			return
		}
		q := &timeline.Request{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Proto: req.Proto,
			Header: timeline.Notable(req.Header), ContentLength: req.ContentLength, Host: req.Host,
			Sent: h.cstart, Arrived: t1, Expect: strings.EqualFold(req.Header.Get("Expect"), "100-continue")}
		h.reqs = append(h.reqs, q)
		h.creq = q
		switch {
		case len(req.TransferEncoding) > 0 && req.TransferEncoding[0] == "chunked":
			h.cbody = &body{chunked: true}
		case req.ContentLength > 0:
			h.cbody = &body{left: req.ContentLength}
		}
	}
}

func (h *h1) feedDown(b []byte, t0, t1 time.Time) {
	for len(b) > 0 && !h.sbroken {
		if h.sbody != nil {
			used, n, done := h.sbody.feed(b)
			h.sreq.BytesOut += n
			h.sreq.Done = t1
			b = b[used:]
			if done {
				h.sbody = nil
				h.lastDone = t1
			}
			continue
		}
		if len(h.shead) == 0 {
			h.sstart = t0
		}
		used, whole := headEnd(&h.shead, b)
		b = b[used:]
		if !whole {
			if len(h.shead) > maxHead {
				h.sbroken = true
			}
			return
		}
		var q *timeline.Request
		if h.next < len(h.reqs) {
			q = h.reqs[h.next]
		} else {
			// An answer to no request we read (its head was lost): keep it,
			// with what it says.
			q = &timeline.Request{Proto: "HTTP/1.1", ContentLength: -1}
			h.reqs = append(h.reqs, q)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(h.shead)), &http.Request{Method: q.Method})
		h.shead = h.shead[:0]
		if err != nil {
			h.sbroken = true
			return
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 {
			if resp.StatusCode == http.StatusContinue && q.Continue.IsZero() {
				q.Continue = h.sstart
			}
			continue
		}
		h.next++
		q.FirstByte, q.Status = h.sstart, resp.StatusCode
		q.ResponseHeader, q.RequestID = responseNotable(resp.Header)
		q.Done = t1
		h.lastDone = t1
		bodyless := q.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified
		switch {
		case bodyless:
		case len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked":
			h.sbody, h.sreq = &body{chunked: true}, q
		case resp.ContentLength > 0:
			h.sbody, h.sreq = &body{left: resp.ContentLength}, q
		case resp.ContentLength < 0:
			h.sbody, h.sreq = &body{toClose: true}, q
		}
	}
}

// idle says whether every request read has its whole response.
func (h *h1) idle() bool { return h.sbody == nil && h.next >= len(h.reqs) && h.cbody == nil }
