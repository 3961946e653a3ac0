package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
)

// ServiceModel draws each request's service time from its operation
// ("get", "put", "head", "list", "delete") and size in bytes: a measured
// profile (Measured), or any distribution a test wants to hide.
type ServiceModel interface {
	ServiceTime(op string, size int64) time.Duration
}

// OpOf names the storage operation of a request to an S3 (path-style) or
// GCS JSON API server, as calibration measures them: a GET of a bucket is
// a list, a GCS metadata GET is a head.
func OpOf(api string, r *http.Request) string {
	switch r.Method {
	case http.MethodHead:
		return "head"
	case http.MethodDelete:
		return "delete"
	case http.MethodPut, http.MethodPost:
		return "put"
	}
	path := strings.Trim(r.URL.Path, "/")
	if api == "gcs" {
		switch {
		case strings.HasPrefix(path, "download/") || r.URL.Query().Get("alt") == "media":
			return "get"
		case strings.HasSuffix(path, "/o"):
			return "list"
		case strings.HasPrefix(path, "storage/v1/"):
			return "head"
		}
		return "get"
	}
	if !strings.Contains(path, "/") || r.URL.Query().Has("list-type") {
		return "list"
	}
	return "get"
}

// requestSize is the body a request carries (S3's decoded length for an
// aws-chunked body), or -1 when it is not known before it is read.
func requestSize(r *http.Request) int64 {
	if v := r.Header.Get("X-Amz-Decoded-Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return r.ContentLength
}

// serviceTime holds the response's first byte (firstAnswer) for a
// service time drawn when it is about to leave: the server has read the
// request and done its work, as the "time beyond the round trips" was
// measured. A GET's size is its response's Content-Length, a PUT's its
// request's (size, or -1).
func serviceTime(w http.ResponseWriter, r *http.Request, model ServiceModel, op string, size int64, stopped context.Context) *firstAnswer {
	f := &firstAnswer{ResponseWriter: w}
	f.before = func() {
		if size < 0 {
			size, _ = strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64)
		}
		_ = Hold(r.Context(), stopped, model.ServiceTime(op, size))
	}
	return f
}

// Hold waits d (a service time, a lookup) unless ctx ends or the lab
// stops first (stopped ends; an error then), on the wire's precise timer:
// a held time is as late as a packet's delay, not up to 1 ms later
// (netem.Sleep). Both are contexts, so that joining them costs no
// goroutine per held response.
func Hold(ctx, stopped context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(stopped, cancel)()
	return netem.Sleep(ctx, d)
}

// WithService delays each response of next by the model's draw.
func WithService(api string, model ServiceModel, stop context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PingPath {
			_ = Hold(r.Context(), stop, PingHold)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		op := OpOf(api, r)
		size := int64(-1)
		if op == "put" {
			size = requestSize(r)
		}
		sw := serviceTime(w, r, model, op, size, stop)
		next.ServeHTTP(sw, r)
		sw.run() // a response with no body and no explicit header
	})
}

// PingPath answers after PingHold, a known service time held as every
// draw is: the twin measures its own time per exchange on it (see
// Compensated), the timer's own lateness included. Measured on a twin at
// 20 ms on a loaded machine, when holds were Go's timers: a 10 ms hold
// made the first byte 0.8-0.9 ms later than 10 ms more than an answer at
// once did (netem.Sleep's timer is 0.08 ms late at the median).
const (
	PingPath = "/.objbench/ping"
	PingHold = 10 * time.Millisecond
)

// Compensated is a model less the lab's own time per exchange: a twin's
// drawn service times are the measured bucket's waits beyond a round
// trip, and the lab's user-space stacks add their own on top.
type Compensated struct {
	ServiceModel
	// Own is the lab's own time per exchange, in ns (set once measured).
	Own *atomic.Int64
}

// ServiceTime is the model's draw less the own time, at least 0.
func (c Compensated) ServiceTime(op string, size int64) time.Duration {
	return max(0, c.ServiceModel.ServiceTime(op, size)-time.Duration(c.Own.Load()))
}
