package wire

import (
	"fmt"
	"testing"
	"time"
)

// HTTP/1.1 read from bytes cut anywhere: the same requests whether the
// stream comes whole or a byte at a time.
func TestHTTP1Framing(t *testing.T) {
	upStream := "PUT /a?x=1 HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello" +
		"POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n" +
		"HEAD /c HTTP/1.1\r\nHost: h\r\n\r\n" +
		"GET /d HTTP/1.1\r\nHost: h\r\n\r\n"
	downStream := "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nx-amz-request-id: R1\r\nContent-Length: 2\r\n\r\nok" +
		"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nx-ms-request-id: R2\r\n\r\n4\r\nabcd\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n" + // HEAD: no body whatever it says
		"HTTP/1.1 503 Slow Down\r\nRetry-After: 2\r\nx-amz-request-id: R4\r\n\r\nslow down until close"
	type want struct {
		method, path, query string
		status              int
		in, out             int64
		id                  string
	}
	wants := []want{{"PUT", "/a", "x=1", 200, 5, 2, "R1"}, {"POST", "/b", "", 201, 3, 20, "R2"}, {"HEAD", "/c", "", 200, 0, 0, ""},
		{"GET", "/d", "", 503, 0, int64(len("slow down until close")), "R4"}}
	t0 := time.Unix(0, 0)
	for _, step := range []int{0, 1, 7} {
		h := &h1{}
		feed := func(dir int, s string) {
			if step == 0 {
				h.feed(dir, []byte(s), t0, t0)
				return
			}
			for i := 0; i < len(s); i += step {
				h.feed(dir, []byte(s[i:min(i+step, len(s))]), t0, t0)
			}
		}
		feed(up, upStream)
		feed(down, downStream)
		if len(h.reqs) != len(wants) {
			t.Fatalf("step %d: %d requests, want %d", step, len(h.reqs), len(wants))
		}
		for i, w := range wants {
			q := h.reqs[i]
			if q.Method != w.method || q.Path != w.path || q.Query != w.query || q.Status != w.status || q.BytesIn != w.in || q.BytesOut != w.out || q.RequestID != w.id {
				t.Errorf("step %d request %d: %s %s ?%s %d in %d out %d id %q, want %+v", step, i, q.Method, q.Path, q.Query, q.Status, q.BytesIn, q.BytesOut, q.RequestID, w)
			}
		}
		if !h.reqs[0].Expect || h.reqs[0].Continue.IsZero() {
			t.Errorf("step %d: the PUT's 100 Continue not seen", step)
		}
		if h.reqs[3].ResponseHeader.Get("Retry-After") != "2" {
			t.Errorf("step %d: Retry-After %q", step, h.reqs[3].ResponseHeader.Get("Retry-After"))
		}
	}
}

// A stream joined mid-record finds the next record's start; one read
// from its start breaks at bytes that are not a record.
func TestFramerResync(t *testing.T) {
	rec := func(n int) []byte { return append([]byte{recAppData, 3, 3, byte(n >> 8), byte(n)}, make([]byte, n)...) }
	tail := []byte{0x42, 0x17, 0x03, 0x01, 0xff, 0x99} // the end of a record begun before the capture
	stream := append(append(append([]byte(nil), tail...), rec(300)...), rec(20)...)
	t0 := time.Unix(0, 0)
	for _, c := range []struct {
		lost bool
		want []int
	}{{true, []int{300, 20}}, {false, nil}} {
		f := &framer{lost: c.lost, resync: c.lost}
		var got []int
		for i := 0; i < len(stream); i += 100 {
			f.feed(stream[i:min(i+100, len(stream))], t0, t0, func(byte) bool { return false }, func(r *record) { got = append(got, r.n) })
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("lost %v: records %v, want %v", c.lost, got, c.want)
		}
	}
}
