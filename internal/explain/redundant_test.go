package explain

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/timeline"
)

// fakeReq is one request of a fake connection.
type fakeReq struct {
	method, path, query string
	header              http.Header
	bytesIn, bytesOut   int64
}

// seqConn is a connection (TLS 1.3, accepted at at+1.5 round trips) whose
// requests go back to back: each arrives one round trip after the one
// before was answered, and takes 0.01 of a round trip at the server.
func seqConn(t0 time.Time, rtt time.Duration, id int, at float64, reqs ...fakeReq) timeline.Conn {
	ts := func(r float64) time.Time { return t0.Add(time.Duration(r * float64(rtt))) }
	c := timeline.Conn{ID: id, API: "s3", Accepted: ts(at + 1.5), Hello: ts(at + 1.5), Handshake: ts(at + 2.5),
		TLSVersion: "1.3", ALPN: "http/1.1", ClosedBy: "client"}
	next := at + 3
	for _, q := range reqs {
		h := q.header
		if h == nil {
			h = http.Header{}
		}
		r := &timeline.Request{Method: q.method, Path: q.path, Query: q.query, Proto: "HTTP/1.1", Header: h,
			Arrived: ts(next), FirstByte: ts(next + 0.01), Done: ts(next + 0.01), BytesIn: q.bytesIn, BytesOut: q.bytesOut, Status: 200}
		if q.bytesIn > 0 {
			r.BodyDone = r.Arrived
		}
		c.Requests = append(c.Requests, r)
		next += 1.01
	}
	c.Closed = ts(next + 1)
	return c
}

func get(k string) fakeReq  { return fakeReq{method: "GET", path: "/objbench/" + k, bytesOut: 1024} }
func head(k string) fakeReq { return fakeReq{method: "HEAD", path: "/objbench/" + k} }
func put(k string) fakeReq  { return fakeReq{method: "PUT", path: "/objbench/" + k, bytesIn: 1024} }

// explainFake analyzes conns as a program that ran 1 round trip past the
// last answer.
func explainFake(t *testing.T, t0 time.Time, rtt time.Duration, conns ...timeline.Conn) (*document.Explain, []document.Finding) {
	t.Helper()
	end := t0
	for _, c := range conns {
		if c.Closed.After(end) {
			end = c.Closed
		}
	}
	in := Input{Program: []string{"prog"}, Conns: conns, Start: t0, End: end.Add(rtt), RTT: rtt}
	e := Analyze(in)
	fs := Findings(&e, in)
	e.Findings = fs
	return &e, fs
}

// TestRedundantRules: each pattern of requests the program need not send,
// on one connection back to back, gets its finding naming exactly those
// requests, a saving of one exchange (a round trip and the server's time)
// per request dropped, and a without-NAME scenario with the same saving.
func TestRedundantRules(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 100 * time.Millisecond
	var headGet, verify, reread, listPer, bucket, listHead, ranges []fakeReq
	for i := range 5 {
		k := fmt.Sprintf("k%d", i)
		headGet = append(headGet, head(k), get(k))
		verify = append(verify, put(k), get(k))
		reread = append(reread, get(k))
		listPer = append(listPer, fakeReq{method: "GET", path: "/objbench", query: "list-type=2&prefix=" + k}, put(k))
		bucket = append(bucket, fakeReq{method: "HEAD", path: "/objbench"}, put(k))
	}
	reread = append(reread, reread...)
	listHead = append(listHead, fakeReq{method: "GET", path: "/objbench", query: "list-type=2"})
	for i := range 4 {
		listHead = append(listHead, head(fmt.Sprintf("k%d", i)))
	}
	ranges = append(ranges, put("big"))
	for i := range 6 {
		r := get("big")
		r.header = http.Header{"Range": {fmt.Sprintf("bytes=%d-%d", i*4096, i*4096+4095)}}
		r.bytesOut = 4096
		ranges = append(ranges, r)
	}
	for _, tc := range []struct {
		name, id string
		reqs     []fakeReq
		// dropped are the request ids (on connection 1) the finding names.
		dropped []int
	}{
		{"HEAD then GET", "explain-redundant-head", headGet, []int{1, 3, 5, 7, 9}},
		{"GET right after its PUT", "explain-get-after-put", verify, []int{2, 4, 6, 8, 10}},
		{"re-reads", "explain-reread", reread, []int{6, 7, 8, 9, 10}},
		{"a listing per object", "explain-list-per-object", listPer, []int{3, 5, 7, 9}},
		{"a bucket check per object", "explain-bucket-per-object", bucket, []int{3, 5, 7, 9}},
		{"HEADs after a listing", "explain-head-after-list", listHead, []int{2, 3, 4, 5}},
		{"tiny ranges", "explain-tiny-ranges", ranges, []int{3, 4, 5, 6, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, fs := explainFake(t, t0, rtt, seqConn(t0, rtt, 1, 0, tc.reqs...))
			f := findingByID(fs, tc.id)
			var want []string
			for _, n := range tc.dropped {
				want = append(want, fmt.Sprintf("1.%d", n))
			}
			slices.Sort(want)
			if f.ID == "" || !slices.Equal(f.Requests, want) {
				t.Fatalf("finding %s names %v, want %v; findings %v", tc.id, f.Requests, want, findingIDs(fs))
			}
			exchange := 1.01 * rtt.Seconds()
			if save := f.Evidence["save_s"]; !near(save, float64(len(want))*exchange, 1e-6) {
				t.Errorf("saves %.4f s, want %d exchanges of %.3f s", save, len(want), exchange)
			}
			if f.Confidence == nil || !f.Confidence.Priced || f.Confidence.Level != "high" || !slices.Contains(f.Confidence.Shown, want[0]) {
				t.Errorf("confidence %+v, want high, priced, shown by %s", f.Confidence, want[0])
			}
			s, ok := scenario(WhatIf(e), "without-"+strings.TrimPrefix(tc.id, "explain-"))
			if !ok || !near(s.SaveS, f.Evidence["save_s"], 1e-9) {
				t.Errorf("scenario without-%s: %+v (found %v), want the finding's saving", tc.id, s, ok)
			}
		})
	}
}

// TestMixedClients: a pooled client (4 connections, reused), idle while
// the program reads 3 objects each through a new client, gets the client
// per object finding for those 3 connections alone: no pool churn, no
// idle connections; each connection is attributed to its client.
func TestMixedClients(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 100 * time.Millisecond
	var conns []timeline.Conn
	for i := range 4 {
		c := seqConn(t0, rtt, i+1, 0, put(fmt.Sprintf("a%d", i)), put(fmt.Sprintf("b%d", i)), put(fmt.Sprintf("c%d", i)))
		c.ClosedBy, c.Closed = "open", time.Time{}
		conns = append(conns, c)
	}
	// The pool's last answer at 5.03; the reads from 8, 12 and 16, each
	// after the one before was done.
	for i := range 3 {
		conns = append(conns, seqConn(t0, rtt, 5+i, 8+4*float64(i), get(fmt.Sprintf("a%d", i))))
	}
	e, fs := explainFake(t, t0, rtt, conns...)
	if got := findingIDs(fs); !strings.Contains(got, "explain-client-per-object") || strings.Contains(got, "explain-pool-churn") || strings.Contains(got, "explain-idle-conns") {
		t.Fatalf("findings %q, want explain-client-per-object, no pool churn, no idle connections", got)
	}
	if f := findingByID(fs, "explain-client-per-object"); !slices.Equal(f.Conns, []int{5, 6, 7}) || f.Evidence["save_s"] <= 0 {
		t.Errorf("client per object names %v (saves %.3f s), want conns 5, 6, 7 and a saving", f.Conns, f.Evidence["save_s"])
	}
	var clients []int
	for _, c := range e.Conns {
		clients = append(clients, c.Client)
	}
	if !slices.Equal(clients, []int{1, 1, 1, 1, 2, 3, 4}) {
		t.Errorf("clients %v, want the pool's 4 connections in client 1 and a client each for the reads", clients)
	}
}

// TestPoolChurn: one client whose pool closes connections that carried a
// few requests each while it opens new ones for requests in flight gets
// the pool churn finding, not client per object.
func TestPoolChurn(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 100 * time.Millisecond
	// Conn 1 is kept and busy throughout; conns 2 and 3 each carry three
	// uploads and are closed, conns 4 and 5 opened after them while conn 1
	// is still busy.
	var kept []fakeReq
	for i := range 12 {
		kept = append(kept, put(fmt.Sprintf("kept%d", i)))
	}
	churn := func(id int, at float64) timeline.Conn {
		c := seqConn(t0, rtt, id, at, put(fmt.Sprintf("c%d-0", id)), put(fmt.Sprintf("c%d-1", id)), put(fmt.Sprintf("c%d-2", id)))
		c.Closed = c.Requests[2].Done.Add(rtt) // closed as its last answer came in
		return c
	}
	_, fs := explainFake(t, t0, rtt, seqConn(t0, rtt, 1, 0, kept...), churn(2, 0), churn(3, 0.2), churn(4, 6.2), churn(5, 6.4))
	if got := findingIDs(fs); !strings.Contains(got, "explain-pool-churn") || strings.Contains(got, "explain-client-per-object") {
		t.Fatalf("findings %q, want explain-pool-churn and no client per object", got)
	}
	if f := findingByID(fs, "explain-pool-churn"); !slices.Equal(f.Conns, []int{2, 3}) {
		t.Errorf("pool churn names %v, want conns 2 and 3", f.Conns)
	}
}

// TestChecksumCPUUnpriced: the SDK's checksum over a large body is a
// finding the model cannot price: it says so and gives no saving.
func TestChecksumCPUUnpriced(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 20 * time.Millisecond
	big := put("big")
	big.bytesIn = 64 << 20
	big.header = http.Header{"X-Amz-Checksum-Crc32": {"AAAA"}}
	_, fs := explainFake(t, t0, rtt, seqConn(t0, rtt, 1, 0, big))
	f := findingByID(fs, "explain-checksum-cpu")
	if f.ID == "" || f.Confidence == nil || f.Confidence.Priced || !strings.Contains(f.Text, "cannot price") || strings.Contains(f.Text, "saves") {
		t.Errorf("finding %+v: want explain-checksum-cpu, unpriced, saying so", f)
	}
	if _, ok := f.Evidence["save_s"]; ok {
		t.Errorf("evidence %v: an unpriced finding has no saving", f.Evidence)
	}
}
