package explain

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/timeline"
	"github.com/objbench/objbench/internal/wire"
)

// TestWireFindings: the findings only the wire can make, on timelines read
// off it (the client's stamps at 20 ms): a lookup before every
// connection, throttling answers with the backoff before the retry, TLS
// 1.2 full handshakes where tickets were offered; and none of them on a
// program that kept its connection.
func TestWireFindings(t *testing.T) {
	rtt := 20 * time.Millisecond
	t0 := time.Unix(1000, 0)
	// conn is one connection opened at `at`: DNS when lookup, TLS 1.2
	// with a ticket offered, and PUTs of the given statuses.
	conn := func(id int, at time.Duration, lookup bool, tls12 bool, statuses ...int) *timeline.Conn {
		s := t0.Add(at)
		c := &timeline.Conn{ID: id, API: "wire", Connect: s, Accepted: s.Add(rtt), ClosedBy: "client", Closed: s.Add(time.Second), Read: "decrypted"}
		if lookup {
			c.DNS = &timeline.Lookup{Name: "bucket.example.test", Type: "A", Query: s.Add(-5 * time.Millisecond), Answer: s.Add(-time.Millisecond)}
		}
		if tls12 {
			c.TLSVersion, c.Hello, c.Handshake, c.TicketOffered = "1.2", s.Add(rtt), s.Add(2*rtt), true
		}
		next := s.Add(3 * rtt)
		for i, st := range statuses {
			q := &timeline.Request{Method: "PUT", Path: "/bucket/key" + string(rune('a'+id)), Proto: "HTTP/1.1", ContentLength: 100, Header: http.Header{"X-Amz-Content-Sha256": {"x"}},
				Sent: next, Arrived: next, FirstByte: next.Add(rtt), Done: next.Add(rtt), Status: st, BytesIn: 100}
			c.Requests = append(c.Requests, q)
			next = next.Add(rtt + time.Duration(i+1)*50*time.Millisecond)
		}
		return c
	}
	var perObject, kept, throttledRun []*timeline.Conn
	for i := range 6 {
		perObject = append(perObject, conn(i+1, time.Duration(i)*200*time.Millisecond, true, true, 200))
	}
	kept = []*timeline.Conn{conn(1, 0, true, false, 200, 200, 200, 200, 200, 200)}
	throttledRun = []*timeline.Conn{conn(1, 0, false, false, 200, 503, 503, 200)}
	for _, tc := range []struct {
		name  string
		conns []*timeline.Conn
		want  []string
	}{
		{"a client per object", perObject, []string{"explain-dns-per-object", "explain-no-tls-resumption"}},
		{"one kept connection", kept, nil},
		{"throttled", throttledRun, []string{"explain-throttled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := FromWire(wire.Result{Conns: tc.conns}, WireMeta{Source: SourcePcap, RTT: rtt}, analysis.DefaultPrices())
			var got []string
			for _, f := range d.Explain.Findings {
				if slices.Contains([]string{"explain-dns-per-object", "explain-no-tls-resumption", "explain-throttled"}, f.ID) {
					got = append(got, f.ID)
					if f.Confidence == nil || f.Confidence.FalseIf == "" || len(f.Confidence.Shown) == 0 {
						t.Errorf("%s: confidence %+v", f.ID, f.Confidence)
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("wire findings %v, want %v", got, tc.want)
			}
			if f := findingByID(d.Explain.Findings, "explain-throttled"); f.ID != "" {
				// The SDK retried the same PUT: the first 503 was followed
				// by the second after its backoff (throttleRule, as on the lab).
				if f.Evidence["throttled"] != 2 || f.Evidence["retried"] != 2 || f.Evidence["backoff_s"] <= 0 {
					t.Errorf("throttled evidence %v", f.Evidence)
				}
			}
		})
	}
}
