package timeline_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/server"
)

func recordingClient(l *lab.Lab, h2 bool) *http.Client {
	tr := &http.Transport{DialContext: l.Dial, TLSClientConfig: l.ClientTLS(), ForceAttemptHTTP2: h2}
	if !h2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &http.Client{Transport: tr}
}

func do(t *testing.T, c *http.Client, method, url, body string, h http.Header) int {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestRecorder: the servers' record of connections and requests: TLS
// version and ALPN, the handshake timed across the wire, bytes, status,
// Expect, and who closed each connection.
func TestRecorder(t *testing.T) {
	t.Parallel()
	rtt := 20 * time.Millisecond
	for _, tc := range []struct {
		name       string
		h2         bool
		version    uint16
		wantVer    string
		wantALPN   string
		closeBy    string
		idle       time.Duration
		faultReset bool
	}{
		{"tls1.3 http/1.1 closed by client", false, tls.VersionTLS13, "1.3", "", "client", 20 * time.Second, false},
		{"tls1.2 h2 closed by client", true, tls.VersionTLS12, "1.2", "h2", "client", 20 * time.Second, false},
		{"idle timeout", false, tls.VersionTLS13, "1.3", "", "idle-timeout", 150 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"s3"}, RTT: &rtt, TLS: true, TLSVersion: tc.version,
				IdleTimeout: tc.idle, Record: true})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			c := recordingClient(l, tc.h2)
			base := l.Endpoint("s3") + "/" + lab.Bucket + "/k"
			if code := do(t, c, "PUT", base, "hello", http.Header{"X-Amz-Checksum-Crc32": {"AAAA"}}); code != 200 {
				t.Fatalf("PUT %d", code)
			}
			if code := do(t, c, "GET", base, "", nil); code != 200 {
				t.Fatalf("GET %d", code)
			}
			if tc.closeBy == "idle-timeout" {
				time.Sleep(3 * tc.idle)
			} else {
				c.CloseIdleConnections()
			}
			l.Recorder().WaitClosed(time.Second)
			conns := l.Recorder().Snapshot()
			if len(conns) != 1 {
				t.Fatalf("%d connections, want 1", len(conns))
			}
			cn := conns[0]
			if cn.TLSVersion != tc.wantVer || cn.ALPN != tc.wantALPN || cn.ClosedBy != tc.closeBy || cn.API != "s3" {
				t.Errorf("conn: TLS %q ALPN %q closed by %q, want %q %q %q", cn.TLSVersion, cn.ALPN, cn.ClosedBy, tc.wantVer, tc.wantALPN, tc.closeBy)
			}
			if hs := cn.Handshake.Sub(cn.Hello); !raceDetector && (hs < rtt*8/10 || hs > 3*rtt) {
				t.Errorf("handshake %s, want about one round trip (%s)", hs, rtt)
			}
			if len(cn.Requests) != 2 {
				t.Fatalf("%d requests, want 2", len(cn.Requests))
			}
			put, get := cn.Requests[0], cn.Requests[1]
			if put.Method != "PUT" || put.BytesIn != 5 || put.Status != 200 || put.Header.Get("X-Amz-Checksum-Crc32") == "" || put.BodyDone.IsZero() {
				t.Errorf("PUT record %+v", put)
			}
			if get.Method != "GET" || get.BytesOut != 5 || get.Status != 200 || get.FirstByte.Before(get.Arrived) || get.Done.Before(get.FirstByte) {
				t.Errorf("GET record %+v", get)
			}
			if cn.BytesIn <= put.BytesIn || cn.BytesOut <= get.BytesOut {
				t.Errorf("wire bytes in %d out %d: want more than the bodies", cn.BytesIn, cn.BytesOut)
			}
		})
	}
}

// TestRecorderFault: a connection a fault reset is closed by "fault", and
// a lab without Record keeps no record.
func TestRecorderFault(t *testing.T) {
	t.Parallel()
	l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"s3"}, Record: true, Faults: server.Faults{Reset: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	req, _ := http.NewRequest("GET", l.Endpoint("s3")+"/"+lab.Bucket+"/k", nil)
	if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatal("want a reset")
	}
	l.Recorder().WaitClosed(time.Second)
	conns := l.Recorder().Snapshot()
	if len(conns) != 1 || conns[0].ClosedBy != "fault" || len(conns[0].Requests) != 1 {
		t.Fatalf("record %+v", conns)
	}
	plain, err := lab.Start(context.Background(), lab.Config{APIs: []string{"s3"}})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if plain.Recorder() != nil {
		t.Error("a lab without Record has a recorder")
	}
}

// TestRecorderAzure: with recording, Azure requests reach Azurite through
// a proxy that records them.
func TestRecorderAzure(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("azurite-blob"); err != nil {
		t.Skip("azurite-blob not on PATH")
	}
	rtt := 10 * time.Millisecond
	l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"azure"}, RTT: &rtt, TLS: true, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := recordingClient(l, true)
	if code := do(t, c, "GET", l.Endpoint("azure")+"/"+lab.Bucket+"?restype=container&comp=list", "", nil); code != http.StatusForbidden {
		t.Errorf("anonymous list: %d, want Azurite's 403", code)
	}
	c.CloseIdleConnections()
	l.Recorder().WaitClosed(time.Second)
	conns := l.Recorder().Snapshot()
	if len(conns) != 1 || conns[0].API != "azure" || len(conns[0].Requests) != 1 || conns[0].Requests[0].Status != http.StatusForbidden {
		t.Fatalf("record %+v", conns)
	}
}
