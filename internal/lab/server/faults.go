package server

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
)

// Faults are per-request probabilities of misbehaviour. They are injected
// in the server rather than as connection-wide network faults, so that
// each request draws its own fate and the rates mean what they say.
type Faults struct {
	Reset    float64 // connection reset by peer before any answer
	Timeout  float64 // a request that never answers
	Slowdown float64 // 503 SlowDown (S3) / 429 (GCS)
	Stall    float64 // a response that stops halfway through its body
	// Corrupt is the share of GET bodies with one byte flipped (halfway
	// through): what a client that checks what it reads must catch.
	Corrupt float64
	// Pause makes the server stop answering for Pause every PauseEvery
	// (windows aligned on the wall clock): requests that arrive in a window
	// wait for its end, which makes coordinated omission visible.
	Pause, PauseEvery time.Duration
}

// Any reports whether any fault is enabled.
func (f Faults) Any() bool { return f.Reset+f.Timeout+f.Slowdown+f.Stall+f.Corrupt > 0 }

// String prints the faults the way ParseFaults reads them.
func (f Faults) String() string {
	var parts []string
	for _, kv := range []struct {
		k string
		v float64
	}{{"reset", f.Reset}, {"timeout", f.Timeout}, {"slowdown", f.Slowdown}, {"stall", f.Stall}, {"corrupt", f.Corrupt}} {
		if kv.v > 0 {
			parts = append(parts, kv.k+"="+strconv.FormatFloat(kv.v*100, 'g', -1, 64)+"%")
		}
	}
	if f.Pause > 0 {
		parts = append(parts, "pause="+f.Pause.String()+"/"+f.PauseEvery.String())
	}
	return strings.Join(parts, ",")
}

// ParseFaults reads "reset=2%,timeout=1%,slowdown=5%,stall=1%,corrupt=1%".
func ParseFaults(s string) (Faults, error) {
	var f Faults
	var err error
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return f, fmt.Errorf("bad fault %q: use kind=percent, e.g. reset=2%%", part)
		}
		if strings.EqualFold(strings.TrimSpace(k), "pause") {
			if f.Pause, f.PauseEvery, err = parsePause(v); err != nil {
				return f, err
			}
			continue
		}
		p, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
		if err != nil || p < 0 || p > 100 {
			return f, fmt.Errorf("bad fault rate %q: use a percentage from 0%% to 100%%", part)
		}
		p /= 100
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "reset":
			f.Reset = p
		case "timeout":
			f.Timeout = p
		case "slowdown":
			f.Slowdown = p
		case "stall":
			f.Stall = p
		case "corrupt":
			f.Corrupt = p
		default:
			return f, fmt.Errorf("unknown fault %q: use reset, timeout, slowdown, stall, corrupt or pause", k)
		}
	}
	if f.Reset+f.Timeout+f.Slowdown+f.Stall > 1 {
		return f, fmt.Errorf("fault rates in %q add up to more than 100%%", s)
	}
	return f, nil
}

// FaultCounts counts the faults injected, for tests and `lab` output.
type FaultCounts struct {
	Requests, Reset, Timeout, Slowdown, Stall, Corrupt atomic.Int64
	// Throttled counts the requests a Limiter refused.
	Throttled atomic.Int64
}

// Behaviour wraps an API handler with the server-side behaviour of the
// lab: service time and faults.
type Behaviour struct {
	API         string
	ServiceTime time.Duration
	Faults      Faults
	// Counts counts the requests served and the faults injected.
	Counts *FaultCounts
	// Stop ends every request held (a timeout, a stall) when closed.
	Stop <-chan struct{}
	// Limiter, when set, refuses a request past its partition's rate with
	// the provider's error (Throttle) before any other work.
	Limiter *Limiter
}

// Wrap serves next with the behaviour.
func (b *Behaviour) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.Counts.Requests.Add(1)
		if !b.paused(r) {
			return
		}
		if b.Limiter != nil {
			if ok, p := b.Limiter.Admit(r); !ok {
				b.Counts.Throttled.Add(1)
				Throttle(w, b.API, p)
				return
			}
		}
		if netem.Sleep(r.Context(), b.ServiceTime) != nil {
			return
		}
		if !b.Faults.Any() {
			next.ServeHTTP(w, r)
			return
		}
		f := b.Faults
		switch x := rand.Float64(); {
		case x < f.Reset:
			b.Counts.Reset.Add(1)
			resetConn(w)
		case x < f.Reset+f.Timeout:
			b.Counts.Timeout.Add(1)
			select { // never answer
			case <-r.Context().Done():
			case <-b.Stop:
			}
		case x < f.Reset+f.Timeout+f.Slowdown:
			b.Counts.Slowdown.Add(1)
			b.slowDown(w)
		case x < f.Reset+f.Timeout+f.Slowdown+f.Stall:
			b.Counts.Stall.Add(1)
			next.ServeHTTP(&stallWriter{ResponseWriter: w, r: r, stop: b.Stop}, r)
		case r.Method == http.MethodGet && rand.Float64() < f.Corrupt:
			b.Counts.Corrupt.Add(1)
			next.ServeHTTP(&corruptWriter{ResponseWriter: w}, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// corruptWriter flips one byte of a successful response's body, halfway
// through it (its first byte when the length is not known).
type corruptWriter struct {
	http.ResponseWriter
	ok          bool
	at, written int64
	done        bool
	headers     bool
}

func (c *corruptWriter) WriteHeader(code int) {
	if !c.headers {
		c.headers = true
		c.ok = code < 300
		if n, err := strconv.ParseInt(c.Header().Get("Content-Length"), 10, 64); err == nil {
			c.at = n / 2
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *corruptWriter) Write(p []byte) (int, error) {
	if !c.headers {
		c.WriteHeader(http.StatusOK)
	}
	if c.ok && !c.done && c.at >= c.written && c.at < c.written+int64(len(p)) {
		c.done = true
		q := append([]byte(nil), p...)
		q[c.at-c.written] ^= 0x55
		p = q
	}
	n, err := c.ResponseWriter.Write(p)
	c.written += int64(n)
	return n, err
}

// Flush and Unwrap keep http.ResponseController working through the wrapper.
func (c *corruptWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *corruptWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (b *Behaviour) slowDown(w http.ResponseWriter) {
	switch b.API {
	case "gcs":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"code":429,"message":"The rate of change requests to the object is too high (objbench lab fault).","errors":[{"reason":"rateLimitExceeded"}]}}`))
	default:
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate (objbench lab fault).</Message></Error>`))
	}
}

// resetConn drops the connection with a TCP RST (SO_LINGER 0).
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok { // HTTP/2: reset the stream
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	raw := conn
	for {
		nc, ok := raw.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		raw = nc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
		_ = tcp.Close()
		return
	}
	_ = conn.Close()
}

// stallWriter lets half of the response body through, then hangs until the
// client gives up or the lab stops.
type stallWriter struct {
	http.ResponseWriter
	r       *http.Request
	stop    <-chan struct{}
	limit   int64
	written int64
	headers bool
}

func (s *stallWriter) WriteHeader(code int) {
	if s.headers {
		return
	}
	s.headers = true
	if n, err := strconv.ParseInt(s.Header().Get("Content-Length"), 10, 64); err == nil {
		s.limit = n / 2
	}
	s.ResponseWriter.WriteHeader(code)
	if s.limit == 0 {
		s.hang()
	}
}

func (s *stallWriter) Write(p []byte) (int, error) {
	if !s.headers {
		s.WriteHeader(http.StatusOK)
	}
	if room := s.limit - s.written; int64(len(p)) > room {
		n, _ := s.ResponseWriter.Write(p[:max(room, 0)])
		s.written += int64(n)
		s.hang()
		return n, http.ErrAbortHandler
	}
	n, err := s.ResponseWriter.Write(p)
	s.written += int64(n)
	return n, err
}

func (s *stallWriter) hang() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	select {
	case <-s.r.Context().Done():
	case <-s.stop:
	}
}
