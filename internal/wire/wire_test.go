package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/timeline"
)

// session12 and session13 are the TLS setups the tests run: a version,
// and for TLS 1.2 the one suite both sides may use.
type tlsCase struct {
	name    string
	version uint16
	suite   uint16 // TLS 1.2 only
	cipher  string // the name Result should give
	h2      bool
	plain   bool
}

var tlsCases = []tlsCase{
	{name: "tls12-aes128gcm", version: tls.VersionTLS12, suite: tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, cipher: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
	{name: "tls12-aes256gcm", version: tls.VersionTLS12, suite: tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, cipher: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
	{name: "tls12-chacha20", version: tls.VersionTLS12, suite: tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, cipher: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
	{name: "tls13", version: tls.VersionTLS13},
	{name: "tls13-h2", version: tls.VersionTLS13, h2: true},
	{name: "tls12-h2", version: tls.VersionTLS12, suite: tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, cipher: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", h2: true},
	{name: "plain-http1", plain: true},
}

// run is one program's traffic over the test wire: what the server saw,
// the packets, the key log and how many connections the client opened.
type run struct {
	seen    []seenReq
	packets []Packet
	keylog  []byte
	dials   int
}

const testPort = 443

// runClient serves the object handler over the wire and runs a client
// through it: a first connection with a GET, a PUT with Expect:
// 100-continue, a throttled GET, a redirect and a HEAD; then a second
// connection (resuming the first's session) with one GET.
func runClient(t *testing.T, c tlsCase) run {
	t.Helper()
	w := newTestWire(t, 5*time.Millisecond)
	ln := w.listen(t, testPort)
	srv := &seen{}
	hs := &http.Server{Handler: srv.handler(), ReadHeaderTimeout: 5 * time.Second}
	if !c.plain {
		cfg := &tls.Config{Certificates: []tls.Certificate{testCert(t)}, MinVersion: c.version, MaxVersion: c.version}
		if c.suite != 0 {
			cfg.CipherSuites = []uint16{c.suite}
		}
		if c.h2 {
			cfg.NextProtos = []string{"h2", "http/1.1"}
		} else {
			cfg.NextProtos = []string{"http/1.1"}
		}
		hs.TLSConfig = cfg
		ln = tls.NewListener(ln, cfg)
	}
	if c.h2 {
		hs.Protocols = new(http.Protocols)
		hs.Protocols.SetHTTP1(true)
		hs.Protocols.SetHTTP2(true)
	}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	var keylog bytes.Buffer
	var dials atomic.Int32
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			dials.Add(1)
			return w.dial(ctx, testPort)
		},
		TLSClientConfig: &tls.Config{ServerName: "bucket.test", InsecureSkipVerify: true, KeyLogWriter: &keylog, //nolint:gosec // a test's self-signed server
			MinVersion: c.version, MaxVersion: c.version, ClientSessionCache: tls.NewLRUClientSessionCache(4)},
		ExpectContinueTimeout: 2 * time.Second,
		ForceAttemptHTTP2:     c.h2,
		MaxIdleConnsPerHost:   1,
	}
	if c.suite != 0 {
		tr.TLSClientConfig.CipherSuites = []uint16{c.suite}
	}
	if !c.h2 {
		tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	if c.h2 {
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetHTTP2(true)
		tr.Protocols.SetHTTP1(true)
	}
	cl := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	base := "https://bucket.test"
	if c.plain {
		base = "http://bucket.test"
	}
	do := func(method, path string, body []byte, expect bool) {
		var rd *bytes.Reader
		req, err := http.NewRequest(method, base+path, nil)
		if body != nil {
			rd = bytes.NewReader(body)
			req, err = http.NewRequest(method, base+path, rd)
		}
		if err != nil {
			t.Fatal(err)
		}
		if expect {
			req.Header.Set("Expect", "100-continue")
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		_, _ = bytes.NewBuffer(nil).ReadFrom(resp.Body)
		resp.Body.Close()
	}
	do("GET", "/obj/200000", nil, false)
	do("PUT", "/put", bytes.Repeat([]byte("x"), 3000), true)
	do("GET", "/throttle", nil, false)
	do("GET", "/moved", nil, false)
	do("HEAD", "/obj/50", nil, false)
	do("GET", "/chunked", nil, false)
	tr.CloseIdleConnections()
	time.Sleep(50 * time.Millisecond)
	do("GET", "/obj/5000", nil, false)
	tr.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond) // the FINs cross
	return run{seen: srv.all(), packets: w.captured(), keylog: keylog.Bytes(), dials: int(dials.Load())}
}

func decode(t *testing.T, r run, keys bool) Result {
	t.Helper()
	d := NewDecoder(Options{})
	if keys {
		if err := d.AddKeyLog(bytes.NewReader(r.keylog)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range r.packets {
		d.Packet(p)
	}
	return d.Result()
}

// requestsOf flattens a result's requests in the order they were sent.
func requestsOf(res Result) []*timeline.Request {
	var out []*timeline.Request
	for _, c := range res.Conns {
		out = append(out, c.Requests...)
	}
	return out
}

func TestDecodeMatchesServer(t *testing.T) {
	for _, c := range tlsCases {
		t.Run(c.name, func(t *testing.T) {
			r := runClient(t, c)
			res := decode(t, r, true)
			if len(res.Conns) != r.dials {
				t.Fatalf("connections: got %d, the client dialed %d", len(res.Conns), r.dials)
			}
			got := requestsOf(res)
			if len(got) != len(r.seen) {
				t.Fatalf("requests: got %d, the server saw %d", len(got), len(r.seen))
			}
			for i, q := range got {
				s := r.seen[i]
				if q.Method != s.method || q.Path != s.path || q.Status != s.status || q.RequestID != s.id {
					t.Errorf("request %d: got %s %s %d %q, the server saw %s %s %d %q", i, q.Method, q.Path, q.Status, q.RequestID, s.method, s.path, s.status, s.id)
				}
				if q.Method == "GET" && q.BytesOut != int64(s.body) {
					t.Errorf("request %d: response body %d bytes, the server sent %d", i, q.BytesOut, s.body)
				}
				if q.Method == "PUT" && q.BytesIn != int64(s.body) {
					t.Errorf("request %d: request body %d bytes, the server read %d", i, q.BytesIn, s.body)
				}
				order := []time.Time{q.Sent, q.Arrived, q.FirstByte, q.Done}
				if q.Method == "PUT" {
					order = []time.Time{q.Sent, q.Arrived, q.BodySent, q.BodyDone, q.FirstByte, q.Done}
				}
				for j := 1; j < len(order); j++ {
					if order[j].IsZero() || order[j].Before(order[j-1]) {
						t.Errorf("request %d (%s %s): stamp %d (%v) out of order after %v", i, q.Method, q.Path, j, order[j], order[j-1])
					}
				}
				if q.Method == "PUT" && !c.h2 && (q.Continue.IsZero() || !q.Expect) {
					t.Errorf("PUT: Expect %v, 100 Continue at %v: want both", q.Expect, q.Continue)
				}
				if q.Method == "PUT" && !q.Continue.IsZero() && q.BodySent.Before(q.Continue) {
					t.Errorf("PUT: body sent %v before the 100 Continue %v", q.BodySent, q.Continue)
				}
			}
			for i, cn := range res.Conns {
				wantRead := "decrypted"
				if c.plain {
					wantRead = "plain"
				}
				if cn.Read != wantRead {
					t.Errorf("conn %d read %q, want %q", i, cn.Read, wantRead)
				}
				if cn.API != "s3" { // the answers carry x-amz-request-id
					t.Errorf("conn %d API %q, want s3", i, cn.API)
				}
				if cn.ClosedBy != "client" || cn.CloseHow != "fin" {
					t.Errorf("conn %d closed by %q how %q, want the client's FIN", i, cn.ClosedBy, cn.CloseHow)
				}
				stamps := []time.Time{cn.Connect, cn.Accepted}
				if !c.plain {
					stamps = append(stamps, cn.Hello, cn.Handshake)
				}
				stamps = append(stamps, cn.Closed)
				for j := 1; j < len(stamps); j++ {
					if stamps[j].IsZero() || stamps[j].Before(stamps[j-1]) {
						t.Errorf("conn %d: stamp %d (%v) out of order after %v", i, j, stamps[j], stamps[j-1])
					}
				}
				if cn.Accepted.Sub(cn.Connect) < 10*time.Millisecond {
					t.Errorf("conn %d: connect took %v, under the path's 10 ms round trip", i, cn.Accepted.Sub(cn.Connect))
				}
				if c.plain {
					continue
				}
				if cn.SNI != "bucket.test" {
					t.Errorf("conn %d SNI %q", i, cn.SNI)
				}
				if want := versionName(c.version); cn.TLSVersion != want {
					t.Errorf("conn %d TLS %q, want %q", i, cn.TLSVersion, want)
				}
				if c.cipher != "" && cn.Cipher != c.cipher {
					t.Errorf("conn %d cipher %q, want %q", i, cn.Cipher, c.cipher)
				}
				wantALPN := "http/1.1"
				if c.h2 {
					wantALPN = "h2"
				}
				if cn.ALPN != wantALPN {
					t.Errorf("conn %d ALPN %q, want %q", i, cn.ALPN, wantALPN)
				}
				wantRT := 1
				if c.version == tls.VersionTLS12 && cn.Resumed == "" {
					wantRT = 2
				}
				if cn.TLSRoundTrips != wantRT {
					t.Errorf("conn %d (resumed %q): %d TLS round trips, want %d", i, cn.Resumed, cn.TLSRoundTrips, wantRT)
				}
				if hs := cn.Handshake.Sub(cn.Hello); hs < 10*time.Millisecond {
					t.Errorf("conn %d: hello to the client's next flight %v, under a round trip", i, hs)
				}
				if i == 1 && cn.Resumed == "" {
					t.Errorf("conn 2 did not resume the first's session")
				}
			}
		})
	}
}

// Without keys, HTTP/1.1 requests are inferred from the records (as many
// as the server saw), HTTP/2 gives connection facts only.
func TestDecodeWithoutKeys(t *testing.T) {
	for _, c := range tlsCases {
		if c.plain {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r := runClient(t, c)
			res := decode(t, r, false)
			got := requestsOf(res)
			for _, cn := range res.Conns {
				want := "inferred"
				if c.h2 {
					want = "connection"
				}
				if cn.Read != want {
					t.Errorf("conn %d read %q, want %q", cn.ID, cn.Read, want)
				}
				if cn.SNI != "bucket.test" || cn.TLSVersion == "" {
					t.Errorf("conn %d: SNI %q, TLS %q: the clear handshake gives both", cn.ID, cn.SNI, cn.TLSVersion)
				}
			}
			if c.h2 {
				if len(got) != 0 {
					t.Errorf("h2 without keys: %d requests, want none", len(got))
				}
				return
			}
			if len(got) != len(r.seen) {
				t.Fatalf("inferred %d requests, the server saw %d", len(got), len(r.seen))
			}
			for i, q := range got {
				if !q.Inferred || q.FirstByte.Before(q.Sent) || q.Done.Before(q.FirstByte) {
					t.Errorf("request %d: inferred %v, sent %v, first byte %v, done %v", i, q.Inferred, q.Sent, q.FirstByte, q.Done)
				}
				if r.seen[i].method == "PUT" && (q.BytesIn < 3000 || !q.Expect) {
					t.Errorf("PUT inferred with %d body bytes, expect %v", q.BytesIn, q.Expect)
				}
			}
		})
	}
}

// The pcapng a capture is written to reads back to the same timeline,
// its keys carried in the file.
func TestPcapngRoundTrip(t *testing.T) {
	r := runClient(t, tlsCases[3])
	want := decode(t, r, true)
	var buf bytes.Buffer
	pw, err := NewPcapngWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := pw.WriteKeyLog(r.keylog); err != nil {
		t.Fatal(err)
	}
	for _, p := range r.packets {
		if err := pw.WritePacket(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	d := NewDecoder(Options{})
	if err := d.ReadPcap(bytes.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	got := d.Result()
	d2 := NewDecoder(Options{})
	keylog, err := ReadPcap(bytes.NewReader(file), func(p Packet) error { d2.Packet(p); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(keylog, r.keylog) {
		t.Errorf("key log read back: %d bytes, wrote %d", len(keylog), len(r.keylog))
	}
	if err := d2.AddKeyLog(bytes.NewReader(keylog)); err != nil {
		t.Fatal(err)
	}
	late := d2.Result()
	d3 := NewDecoder(Options{})
	if err := ReadPcapStream(bytes.NewReader(file), func(p Packet) error { d3.Packet(p); return nil },
		func(k []byte) error { return d3.AddKeyLog(bytes.NewReader(k)) }); err != nil {
		t.Fatal(err)
	}
	streamed := d3.Result()
	for name, res := range map[string]Result{"keys as read": got, "keys after the packets": late, "streamed": streamed} {
		if len(res.Conns) != len(want.Conns) || len(requestsOf(res)) != len(requestsOf(want)) {
			t.Fatalf("%s: %d conns %d requests, live %d and %d", name, len(res.Conns), len(requestsOf(res)), len(want.Conns), len(requestsOf(want)))
		}
		for i, q := range requestsOf(res) {
			w := requestsOf(want)[i]
			if q.Method != w.Method || q.Path != w.Path || q.Status != w.Status || !q.FirstByte.Equal(w.FirstByte) || q.RequestID != w.RequestID {
				t.Errorf("%s: request %d %s %s %d %v, live %s %s %d %v", name, i, q.Method, q.Path, q.Status, q.FirstByte, w.Method, w.Path, w.Status, w.FirstByte)
			}
		}
		for _, c := range res.Conns {
			if c.Read != "decrypted" {
				t.Errorf("%s: conn %d read %q", name, c.ID, c.Read)
			}
		}
	}
	if strings.Contains(string(file), "CLIENT_TRAFFIC_SECRET_0") == false {
		t.Error("the pcapng carries no key log")
	}
}

// The pcapng opens decrypted in tshark (Wireshark's reader) with the
// same request count as the decoder's: its Decryption Secrets Block is
// one Wireshark reads.
func TestPcapngTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed")
	}
	for _, c := range []tlsCase{tlsCases[0], tlsCases[3], tlsCases[4]} {
		t.Run(c.name, func(t *testing.T) {
			r := runClient(t, c)
			file := filepath.Join(t.TempDir(), "capture.pcapng")
			f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			pw, err := NewPcapngWriter(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := pw.WriteKeyLog(r.keylog); err != nil {
				t.Fatal(err)
			}
			// As the live path writes it: each packet decoded, then
			// written, after the key lines the decoder derived from it.
			d := NewDecoder(Options{DerivedKey: func(line []byte) {
				if err := pw.WriteKeyLog(line); err != nil {
					t.Error(err)
				}
			}})
			if err := d.AddKeyLog(bytes.NewReader(r.keylog)); err != nil {
				t.Fatal(err)
			}
			for _, p := range r.packets {
				d.Packet(p)
				if err := pw.WritePacket(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := pw.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			res := d.Result()
			filter, field := "http.request", "http.request.method"
			if c.h2 {
				filter, field = "http2.headers.method", "http2.headers.method"
			}
			out, err := exec.Command(tshark, "-n", "-r", file, "-Y", filter, "-T", "fields", "-e", field).Output()
			if err != nil {
				t.Fatalf("tshark: %v", err)
			}
			n := 0
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				n += len(strings.FieldsFunc(l, func(r rune) bool { return r == ',' }))
			}
			if want := len(requestsOf(res)); n != want {
				t.Errorf("tshark read %d requests, objbench %d:\n%s", n, want, out)
			}
		})
	}
}
