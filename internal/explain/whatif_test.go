package explain

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/timeline"
)

// seqConns is a program that made n GETs one after the other, each on a
// connection of its own (perConn) or all on one, with gap round trips of
// its own time before each connection or request; a PUT waits for 100
// Continue when expect.
func seqConns(t0 time.Time, rtt time.Duration, n int, perConn bool, gap float64, put bool) []timeline.Conn {
	ts := func(r float64) time.Time { return t0.Add(time.Duration(r * float64(rtt))) }
	var out []timeline.Conn
	at := 0.0 // the client's clock, in round trips
	for i := range n {
		if i == 0 || perConn {
			at += gap
			c := timeline.Conn{ID: len(out) + 1, API: "s3", Accepted: ts(at + 1.5), Hello: ts(at + 1.5), Handshake: ts(at + 2.5),
				TLSVersion: "1.3", ALPN: "http/1.1", ClosedBy: "client"}
			out = append(out, c)
			at += 2
		} else {
			at += gap
		}
		c := &out[len(out)-1]
		q := &timeline.Request{Method: "GET", Path: fmt.Sprintf("/objbench/k%d", i), Proto: "HTTP/1.1", Status: 200, BytesOut: 10,
			Arrived: ts(at + 0.5), FirstByte: ts(at + 0.5), Done: ts(at + 0.5)}
		if put {
			q.Method, q.BytesOut, q.BytesIn, q.Expect = "PUT", 0, 10, true
			q.Header = http.Header{"Expect": {"100-continue"}}
			q.BodyDone, q.FirstByte, q.Done = ts(at+1.5), ts(at+1.5), ts(at+1.5)
			at++
		}
		c.Requests = append(c.Requests, q)
		at++
		c.Closed = ts(at + 0.5)
	}
	return out
}

func TestWhatIfModel(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const rtt = 0.1
	for _, tc := range []struct {
		name  string
		conns []timeline.Conn
		// want are predicted wall times by scenario, in round trips (-1:
		// present, any time); the program ends with its last answer.
		want map[string]float64
	}{
		// 10 GETs, each on a new connection (2 round trips of handshake,
		// 1 of exchange), 0.5 round trips of the program's own time (a new
		// client's set-up) before each: 35 round trips. One kept client: one
		// handshake, no set-up gap after the first: 0.5 + 2 + 10 = 12.5.
		// In parallel: all ten at once after the program's own time,
		// which runs one thread at a time: 0.5 x 10 + 2 + 1. HTTP/2: the
		// handshakes but the first go, the set-up gaps stay.
		{"client per object", seqConns(t0, 100*time.Millisecond, 10, true, 0.5, false),
			map[string]float64{"reuse": 12.5, "parallel-10": 0.5*10 + 3, "http2": 12.5 + 0.5*9, "rtt-2ms": -1}},
		// 20 GETs on one connection, nothing in between: 2 + 20. Ten at
		// once: the first on the open connection, nine more with a
		// handshake each, then ten more: 2 + 1 + 1.
		{"sequential", seqConns(t0, 100*time.Millisecond, 20, false, 0, false),
			map[string]float64{"parallel-10": 4}},
		// 6 PUTs that waited for 100 Continue: 2 + 6 x 2; without: 2 + 6;
		// six at once: 2 + 2.
		{"expect", seqConns(t0, 100*time.Millisecond, 6, false, 0, true),
			map[string]float64{"no-expect": 8, "parallel-10": 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			last := tc.conns[len(tc.conns)-1]
			end := last.Requests[len(last.Requests)-1].Done.Add(time.Duration(0.5 * rtt * float64(time.Second)))
			in := Input{Conns: tc.conns, Start: t0, End: end, RTT: time.Duration(rtt * float64(time.Second))}
			e := Analyze(in)
			if got := newGraph(&e).retime(fix{}); !near(got, e.WallS, 1e-9) {
				t.Fatalf("unchanged: %.4f s, recorded %.4f s", got, e.WallS)
			}
			w := WhatIf(&e)
			for id, rts := range tc.want {
				s, ok := scenario(w, id)
				if !ok {
					t.Errorf("no scenario %s in %v", id, w)
					continue
				}
				if rts < 0 {
					continue
				}
				if !near(s.WallS, rts*rtt, 1e-6) || !near(s.SaveS, e.WallS-s.WallS, 1e-9) {
					t.Errorf("%s: %.4f s (saves %.4f), want %.4f s (recorded %.4f s)", id, s.WallS, s.SaveS, rts*rtt, e.WallS)
				}
			}
			// Each finding's saving is its scenario's.
			for _, f := range Findings(&e, in) {
				id := map[string]string{"explain-client-per-object": "reuse", "explain-sequential": "parallel-10", "explain-expect-continue": "no-expect"}[f.ID]
				if s, ok := scenario(w, id); ok && !near(f.Evidence["save_s"], s.SaveS, 1e-9) {
					t.Errorf("%s saves %.4f s, scenario %s %.4f s", f.ID, f.Evidence["save_s"], id, s.SaveS)
				}
			}
		})
	}
}

func TestExpectedMisses(t *testing.T) {
	t.Parallel()
	r := func(method, path, op string, status int, at float64) *document.ExplainRequest {
		return &document.ExplainRequest{Method: method, Path: path, Operation: op, Status: status, ArrivedS: at}
	}
	for _, tc := range []struct {
		name string
		reqs []*document.ExplainRequest
		want int
	}{
		{"HEAD bucket before CreateBucket", []*document.ExplainRequest{r("HEAD", "/b", "HeadBucket", 404, 0), r("PUT", "/b", "CreateBucket", 200, 1)}, 1},
		{"upload into a missing container, created, again", []*document.ExplainRequest{r("PUT", "/acct/c/k", "PutBlob", 404, 0),
			r("PUT", "/acct/c", "CreateContainer", 201, 1), r("PUT", "/acct/c/k", "PutBlob", 201, 2)}, 1},
		{"HEAD object before its PUT", []*document.ExplainRequest{r("HEAD", "/b/k", "HeadObject", 404, 0), r("PUT", "/b/k", "PutObject", 200, 1)}, 1},
		{"a 404 nothing created", []*document.ExplainRequest{r("GET", "/b/k", "GetObject", 404, 0), r("PUT", "/b/j", "PutObject", 200, 1)}, 0},
		{"created before, not after", []*document.ExplainRequest{r("PUT", "/b", "CreateBucket", 200, 0), r("HEAD", "/b/k", "HeadObject", 404, 1)}, 0},
		{"the create failed", []*document.ExplainRequest{r("HEAD", "/b", "HeadBucket", 404, 0), r("PUT", "/b", "CreateBucket", 409, 1)}, 0},
	} {
		if got := expectedMisses(tc.reqs); got != tc.want {
			t.Errorf("%s: %d expected misses, want %d", tc.name, got, tc.want)
		}
	}
}

func TestIdleConnsFinding(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	rtt := 100 * time.Millisecond
	// Conn 1 idle from 3 to 7 round trips and used again once conn 2,
	// opened at 4 in between, was done: two clients where one would do.
	conns := []timeline.Conn{fakeConn(t0, rtt, 1, 0, 2.5, 7.5), fakeConn(t0, rtt, 2, 4, 6.5)}
	in := Input{Conns: conns, Start: t0, End: t0.Add(12 * rtt), RTT: rtt}
	e := Analyze(in)
	fs := Findings(&e, in)
	f := findingByID(fs, "explain-idle-conns")
	if len(f.Conns) != 2 || f.Conns[0] != 2 || f.Conns[1] != 1 || f.Evidence["save_s"] <= 0 {
		t.Errorf("findings %+v: want explain-idle-conns naming conn 2 (opened) and conn 1 (idle), with a saving", fs)
	}
}
