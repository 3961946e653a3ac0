package nettrace

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// do performs one traced GET or PUT through tr and returns its sample.
func do(t *testing.T, tr *Transport, method, url string, body []byte) Sample {
	t.Helper()
	ctx, op := Begin(context.Background())
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return op.Finish()
}

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func hello(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	_, _ = w.Write([]byte(strings.Repeat("x", 1024)))
}

func TestStrategiesReuse(t *testing.T) {
	t.Parallel()
	srv := newServer(t, hello)
	tests := []struct {
		strategy   Strategy
		wantReused []bool
		wantProto  string
	}{
		{Pooled, []bool{false, true, true}, "http/1.1"},
		{Fresh, []bool{false, false, false}, "http/1.1"},
	}
	for _, tc := range tests {
		t.Run(string(tc.strategy), func(t *testing.T) {
			tr := NewTransport(Config{Strategy: tc.strategy})
			defer tr.CloseIdleConnections()
			for i, want := range tc.wantReused {
				s := do(t, tr, "GET", srv.URL, nil)
				if s.Reused != want {
					t.Errorf("request %d: reused = %v, want %v", i, s.Reused, want)
				}
				if got := s.Phases[Connect] > 0; got == want {
					t.Errorf("request %d: connect = %v with reused = %v", i, s.Phases[Connect], want)
				}
				if s.Phases[TLS] != 0 || s.Phases[DNS] != 0 {
					t.Errorf("request %d: plain HTTP to an IP literal has tls %v dns %v", i, s.Phases[TLS], s.Phases[DNS])
				}
				if s.Proto != tc.wantProto || s.Status != 200 || s.Bytes != 1024 || s.Requests != 1 {
					t.Errorf("request %d: proto %q status %d bytes %d requests %d", i, s.Proto, s.Status, s.Bytes, s.Requests)
				}
				if s.TTFB() <= 0 || s.Total() < s.TTFB() {
					t.Errorf("request %d: ttfb %v total %v", i, s.TTFB(), s.Total())
				}
			}
			if want := int64(1); tc.strategy == Pooled && tr.ConnsOpened() != want {
				t.Errorf("pooled opened %d connections, want %d", tr.ConnsOpened(), want)
			}
			if tc.strategy == Fresh && tr.ConnsOpened() != 3 {
				t.Errorf("fresh opened %d connections, want 3", tr.ConnsOpened())
			}
		})
	}
}

// TestPhasesMeasureDelays holds each phase against the server's own clock.
// Every mark the client takes (first byte, request written, body read) comes
// after the event it marks, late by as long as its goroutine waited for a
// CPU: 15 ms once on the CI machine, with the race detector and other
// packages' tests on both cores. The handler stamps its events in this
// process, on the same clock, so the test asks what a late mark cannot
// break: the first byte between the flush and the body's second half, the
// body's end after that second half, the request's round trip covering the
// server's hold. A mark late by more than half the hold (50 ms) fails.
func TestPhasesMeasureDelays(t *testing.T) {
	t.Parallel()
	const (
		dial  = 30 * time.Millisecond  // the dialer's own time: connect
		hold  = 100 * time.Millisecond // server time before the headers: wait
		stall = 100 * time.Millisecond // a stalled body: recv
		late  = 200 * time.Millisecond // the most a phase may run over
	)
	var t0, t1, t2 time.Time // handler entry, headers sent, second half sent
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		t0 = time.Now()
		time.Sleep(hold)
		t1 = time.Now() // before the write: the client can read it before Flush returns
		w.Header().Set("Content-Length", "2048")
		w.WriteHeader(200)
		_, _ = w.Write(make([]byte, 1024))
		w.(http.Flusher).Flush()
		time.Sleep(stall)
		t2 = time.Now()
		_, _ = w.Write(make([]byte, 1024))
	})
	// A custom dialer's time is the connect phase (the lab's handshake across its network).
	slowDial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		time.Sleep(dial)
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	tr := NewTransport(Config{Dial: slowDial})
	defer tr.CloseIdleConnections()
	s := do(t, tr, "GET", srv.URL, nil) // the handler has returned: t0..t2 are set
	ph := s.Phases
	if got := ph[Connect]; got < dial || got > dial+late {
		t.Errorf("connect = %v, want the dialer's %v", got, dial)
	}
	// GotConn is marked before the request is written, so the span from
	// it to the first byte holds the whole of the server's hold.
	if got := ph[Send] + ph[Wait]; got < t1.Sub(t0) || got > hold+late {
		t.Errorf("send+wait = %v, want at least the server's hold %v", got, t1.Sub(t0))
	}
	if ph[Wait] < ph[Send] {
		t.Errorf("wait = %v, send = %v: the server's %v hold should be in wait", ph[Wait], ph[Send], hold)
	}
	if s.FirstByte.Before(t1) || !s.FirstByte.Before(t2) {
		t.Errorf("first byte %v after the headers were sent, want between them and the second half %v later",
			s.FirstByte.Sub(t1), t2.Sub(t1))
	}
	if end := s.FirstByte.Add(ph[Recv]); end.Before(t2) || ph[Recv] > stall+late {
		t.Errorf("recv = %v ends %v after the second half was written, want the stall of %v in it",
			ph[Recv], end.Sub(t2), stall)
	}
	if s.TTFB() < dial+hold || s.Total() < dial+hold+stall {
		t.Errorf("ttfb %v total %v, want >= %v and %v", s.TTFB(), s.Total(), dial+hold, dial+hold+stall)
	}
}

func TestDNSPhase(t *testing.T) {
	t.Parallel()
	srv := newServer(t, hello)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tr := NewTransport(Config{Strategy: Fresh})
	s := do(t, tr, "GET", "http://localhost:"+port+"/", nil)
	if s.Phases[DNS] <= 0 {
		t.Errorf("dns = %v for a host name, want > 0", s.Phases[DNS])
	}
}

func TestTLSAndHTTP2(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	tests := []struct {
		name      string
		strategy  Strategy
		maxVer    uint16
		wantProto string
		wantTLS   string
	}{
		{"pooled tls1.3", Pooled, 0, "http/1.1", "TLS1.3"},
		{"pooled tls1.2", Pooled, tls.VersionTLS12, "http/1.1", "TLS1.2"},
		{"h2", H2, 0, "h2", "TLS1.3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTransport(Config{Strategy: tc.strategy, TLS: &tls.Config{RootCAs: roots, MaxVersion: tc.maxVer}})
			defer tr.CloseIdleConnections()
			first := do(t, tr, "GET", srv.URL, nil)
			second := do(t, tr, "GET", srv.URL, nil)
			if first.Phases[TLS] <= 0 || first.Reused {
				t.Errorf("first: tls %v reused %v, want a handshake on a new connection", first.Phases[TLS], first.Reused)
			}
			if second.Phases[TLS] != 0 || !second.Reused {
				t.Errorf("second: tls %v reused %v, want a reused connection", second.Phases[TLS], second.Reused)
			}
			if first.Proto != tc.wantProto || first.TLSVersion != tc.wantTLS {
				t.Errorf("proto %q tls %q, want %q %q", first.Proto, first.TLSVersion, tc.wantProto, tc.wantTLS)
			}
			if tr.TLSHandshakes() != 1 {
				t.Errorf("%d TLS handshakes, want 1", tr.TLSHandshakes())
			}
		})
	}
}

func TestH2C(t *testing.T) {
	t.Parallel()
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	srv.Config.Protocols = &protos
	srv.Start()
	t.Cleanup(srv.Close)
	tr := NewTransport(Config{Strategy: H2})
	defer tr.CloseIdleConnections()
	if s := do(t, tr, "GET", srv.URL, nil); s.Proto != "h2" {
		t.Errorf("proto %q, want h2 (h2c)", s.Proto)
	}
}

// lateWait100 is how short a measured wait for 100 Continue may read. The
// client marks the wait's start after it flushed the headers, so a mark
// late by L (its goroutine waiting for a CPU, as in the race step with both
// cores busy) shortens the wait by L; half the server's hold passes any L
// under 50 ms.
const lateWait100 = 50 * time.Millisecond

func TestExpectContinue(t *testing.T) {
	t.Parallel()
	const delay = 100 * time.Millisecond
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay) // the server decides before it asks for the body
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(200)
	})
	body := make([]byte, 64<<10)
	for _, expect := range []bool{false, true} {
		tr := NewTransport(Config{ExpectContinue: expect})
		s := do(t, tr, "PUT", srv.URL, body)
		tr.CloseIdleConnections()
		if expect && (s.Phases[Wait100] < delay-lateWait100 || s.Phases[Wait] <= 0) {
			t.Errorf("expect: wait100 = %v wait = %v, want wait100 >= %v", s.Phases[Wait100], s.Phases[Wait], delay)
		}
		if !expect && s.Phases[Wait100] != 0 {
			t.Errorf("no expect: wait100 = %v, want 0", s.Phases[Wait100])
		}
	}
}

// TestExpectContinueWhateverBuiltTheRequest: with ExpectContinue, the body
// waits for 100 Continue whatever shape the SDK gave the request (smithy-go
// sets no protocol version, the GCS writer streams a body of unknown
// length), over HTTP/1.1 and h2c. Without it, an SDK's own header is sent
// as built: a request with no protocol version does not wait on HTTP/1.1
// (aws-sdk-go-v2's Expect on large PUTs), one from http.NewRequest does.
func TestExpectContinueWhateverBuiltTheRequest(t *testing.T) {
	t.Parallel()
	const delay = 100 * time.Millisecond
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay) // the server decides before it asks for the body
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(200)
	}))
	srv.Config.Protocols = &protos
	srv.Start()
	t.Cleanup(srv.Close)
	body := make([]byte, 64<<10)
	tests := []struct {
		name         string
		strategy     Strategy
		flag         bool
		sdkExpect    bool // the SDK set the header itself
		noProto      bool // as smithy-go builds it
		unknownLen   bool // as the GCS writer streams it
		wantSent     bool
		wantWaited   bool
		wantProtocol string
	}{
		{"flag, net/http request", Pooled, true, false, false, false, true, true, "http/1.1"},
		{"flag, no protocol version", Pooled, true, false, true, false, true, true, "http/1.1"},
		{"flag, unknown length", Pooled, true, false, false, true, true, true, "http/1.1"},
		{"flag, no protocol version, h2c", H2, true, false, true, false, true, true, "h2"},
		{"flag, unknown length, h2c", H2, true, false, false, true, true, true, "h2"},
		{"no flag, no header", Pooled, false, false, false, false, false, false, "http/1.1"},
		{"no flag, SDK header, no protocol version", Pooled, false, true, true, false, true, false, "http/1.1"},
		{"no flag, SDK header, net/http request", Pooled, false, true, false, false, true, true, "http/1.1"},
		{"no flag, SDK header, no protocol version, h2c", H2, false, true, true, false, true, true, "h2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := NewTransport(Config{Strategy: tc.strategy, ExpectContinue: tc.flag})
			defer tr.CloseIdleConnections()
			ctx, op := Begin(context.Background())
			var rd io.Reader = bytes.NewReader(body)
			if tc.unknownLen {
				rd = io.MultiReader(rd) // no length for NewRequest to find
			}
			req, err := http.NewRequestWithContext(ctx, "PUT", srv.URL, rd)
			if err != nil {
				t.Fatal(err)
			}
			if tc.noProto {
				req.Proto, req.ProtoMajor, req.ProtoMinor = "", 0, 0
			}
			if tc.sdkExpect {
				req.Header.Set("Expect", "100-continue")
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			s := op.Finish()
			if s.ExpectSent != tc.wantSent || s.ExpectWaited != tc.wantWaited || s.Proto != tc.wantProtocol || s.Status != 200 {
				t.Errorf("sent %v waited %v proto %s status %d, want sent %v waited %v proto %s", s.ExpectSent, s.ExpectWaited,
					s.Proto, s.Status, tc.wantSent, tc.wantWaited, tc.wantProtocol)
			}
			if tc.wantWaited && s.Phases[Wait100] < delay-lateWait100 {
				t.Errorf("wait100 = %v, want at least the server's %v", s.Phases[Wait100], delay)
			}
			if !tc.wantWaited && s.Phases[Wait100] != 0 {
				t.Errorf("wait100 = %v, want 0", s.Phases[Wait100])
			}
			// The final response's first byte, not the 100 Continue's. (On
			// h2, WroteRequest may fire after the response under load, and
			// wait is then 0: the hooks run on different goroutines.)
			if (s.Phases[Wait] <= 0 && tc.strategy != H2) || s.TTFB() < delay {
				t.Errorf("wait %v ttfb %v: the first byte must be the final response's", s.Phases[Wait], s.TTFB())
			}
		})
	}
}

func TestRetriesCounted(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(503)
			return
		}
		hello(w, r)
	})
	tr := NewTransport(Config{})
	ctx, op := Begin(context.Background())
	for range 2 { // what an SDK retrier does
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
		resp, err := tr.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	s := op.Finish()
	if s.Requests != 2 || s.Retries != 1 || s.Status != 200 {
		t.Errorf("requests %d retries %d status %d, want 2 1 200", s.Requests, s.Retries, s.Status)
	}
}

// TestConcurrentAndLateHooks runs many requests at once, including ones the
// server answers before reading their body (so WroteRequest may fire after
// the response) and ones abandoned mid-body; run with -race.
func TestConcurrentAndLateHooks(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "PUT" {
			w.WriteHeader(413) // early answer, body unread
			return
		}
		hello(w, r)
	})
	tr := NewTransport(Config{})
	defer tr.CloseIdleConnections()
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, op := Begin(context.Background())
			method, body := "GET", io.Reader(nil)
			if i%2 == 0 {
				method, body = "PUT", bytes.NewReader(make([]byte, 1<<20))
			}
			req, _ := http.NewRequestWithContext(ctx, method, srv.URL, body)
			resp, err := tr.Client().Do(req)
			if err == nil {
				if i%4 == 1 {
					buf := make([]byte, 10)
					_, _ = resp.Body.Read(buf) // abandoned mid-body
				} else {
					_, _ = io.Copy(io.Discard, resp.Body)
				}
				resp.Body.Close()
			}
			s := op.Finish()
			if s.Requests != 1 {
				t.Errorf("requests = %d, want 1", s.Requests)
			}
			for p, d := range s.Phases {
				if d < 0 {
					t.Errorf("phase %s negative: %v", Phase(p), d)
				}
			}
		}()
	}
	wg.Wait()
}

func TestUntracedRequestsPassThrough(t *testing.T) {
	t.Parallel()
	srv := newServer(t, hello)
	tr := NewTransport(Config{})
	resp, err := tr.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) != 1024 {
		t.Errorf("got %d bytes", len(b))
	}
}

func TestParseStrategy(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"pooled", "fresh", "h2"} {
		if _, err := ParseStrategy(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := ParseStrategy("http3"); err == nil {
		t.Error("http3 accepted")
	}
}

// The WroteRequest hook runs on the transport's writer goroutine and may be
// scheduled after the response arrived; the socket's last write then marks
// the end of sending, so wait is never lost to a late hook.
func TestPhasesWithLateWroteRequestHook(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name                             string
		wrote, connWriteStart, connWrote time.Time
		wantSend, wantWait               time.Duration
	}{
		{"hook in order", at(2), at(1), at(2), 2 * time.Millisecond, 8 * time.Millisecond},
		{"hook late", at(12), at(1), at(2), 2 * time.Millisecond, 8 * time.Millisecond},
		{"hook never ran", time.Time{}, at(1), at(3), 3 * time.Millisecond, 7 * time.Millisecond},
		{"answer while the write was returning (in-process stack)", at(13), at(4), at(11), 4 * time.Millisecond, 6 * time.Millisecond},
		{"late hook, no socket time (HTTP/2)", at(12), time.Time{}, time.Time{}, 12 * time.Millisecond, 0},
		{"socket write began after the answer (early reply)", at(12), at(11), at(11), 12 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &exchange{gotConn: at(0), wroteRequest: tt.wrote, connWriteStart: tt.connWriteStart, connWrote: tt.connWrote, firstByte: at(10), bodyDone: at(15)}
			var ps [NumPhases]time.Duration
			ex.addPhases(&ps, at(20))
			if ps[Send] != tt.wantSend || ps[Wait] != tt.wantWait || ps[Recv] != 5*time.Millisecond {
				t.Errorf("send %v wait %v recv %v; want %v %v 5ms", ps[Send], ps[Wait], ps[Recv], tt.wantSend, tt.wantWait)
			}
		})
	}
}
