package probe

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/units"
)

// Server is the HTTP face of a Prober: POST /probe runs a round, GET
// /healthz says how the process is, GET /metrics is Metrics.
type Server struct {
	P *Prober
	// Defaults are the round options a request or a tick starts from.
	Defaults Options
	// Token, when set, is the bearer token POST /probe needs.
	Token string
	// Metrics serves GET /metrics.
	Metrics http.Handler
	// Log receives one line per failed or partial round.
	Log io.Writer

	started  time.Time
	rounds   atomic.Int64
	inFlight atomic.Int64
}

// Handler routes the server's three paths.
func (s *Server) Handler() http.Handler {
	s.started = time.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /probe", s.handleProbe)
	mux.Handle("GET /metrics", s.Metrics)
	mux.HandleFunc("GET /healthz", s.handleHealth)
	return mux
}

// Request is POST /probe's body: the scheduler's options.
type Request struct {
	Count   int             `json:"count"`
	Pool    int             `json:"pool"`
	Size    json.RawMessage `json:"size"` // 1024 or "1KiB"
	Prepare bool            `json:"prepare"`
	Target  string          `json:"target"`
}

// parse merges the request into the defaults.
func (s *Server) parse(r *http.Request) (Options, string, error) {
	o := s.Defaults
	var req Request
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		return o, "", fmt.Errorf("read body: %w", err)
	}
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return o, "", fmt.Errorf("body: %w (fields: count, pool, size, prepare, target)", err)
		}
	}
	o, err = req.Apply(o)
	return o, req.Target, err
}

// Apply merges the request's options into o and checks them.
func (req Request) Apply(o Options) (Options, error) {
	if req.Count != 0 {
		o.Count = req.Count
	}
	if req.Pool != 0 {
		o.Pool = req.Pool
	}
	if len(req.Size) > 0 {
		var n int64
		var str string
		switch {
		case json.Unmarshal(req.Size, &n) == nil:
		case json.Unmarshal(req.Size, &str) == nil:
			var err error
			if n, err = units.ParseSize(str); err != nil {
				return o, fmt.Errorf("size %q: use bytes or a size such as 1KiB", str)
			}
		default:
			return o, fmt.Errorf("size: use bytes or a size such as \"1KiB\"")
		}
		o.Size = n
	}
	o.Prepare = o.Prepare || req.Prepare
	if o.Count <= 0 || o.Pool <= 0 || o.Size <= 0 {
		return o, fmt.Errorf("count, pool and size must be positive")
	}
	if _, err := o.WithDefaults(); err != nil {
		return o, err
	}
	return o, nil
}

func (s *Server) authorized(r *http.Request) bool {
	if s.Token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.Token)) == 1
}

func (s *Server) handleProbe(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="objbench"`)
		httpError(w, http.StatusUnauthorized, errors.New("missing or wrong bearer token"))
		return
	}
	o, name, err := s.parse(r)
	if err != nil {
		httpError(w, http.StatusBadRequest, err)
		return
	}
	targets, err := s.P.Find(name)
	if err != nil {
		httpError(w, http.StatusBadRequest, err)
		return
	}
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	docs, _, err := s.P.Round(r.Context(), targets, o)
	s.rounds.Add(1)
	if err != nil && len(docs) == 0 {
		status := http.StatusBadGateway
		if errors.Is(err, ErrPoolMissing) {
			status = http.StatusConflict
		}
		if r.Context().Err() != nil {
			status = http.StatusServiceUnavailable
		}
		httpError(w, status, err)
		return
	}
	if err != nil {
		fmt.Fprintf(s.Log, "objbench serve: round stopped: %s\n", oneLine(err.Error()))
	}
	w.Header().Set("Content-Type", "application/json")
	if b, err := document.EncodeRounds(docs); err == nil {
		_, _ = w.Write(b)
	}
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var targets []map[string]any
	for _, t := range s.P.Targets {
		targets = append(targets, map[string]any{"target": t.Info.URL, "seq": t.Seq()})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"status": "ok", "version": document.Version(), "uptime_s": time.Since(s.started).Seconds(),
		"rounds": s.rounds.Load(), "in_flight": s.inFlight.Load(),
		"goroutines": runtime.NumGoroutine(), "heap_bytes": ms.HeapAlloc, "targets": targets,
	})
}

// Schedule runs a round on every target at each tick until ctx ends.
func (s *Server) Schedule(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			docs, _, err := s.P.Round(ctx, s.P.Targets, s.Defaults)
			s.rounds.Add(1)
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(s.Log, "objbench serve: scheduled round: %s\n", oneLine(err.Error()))
			}
			for _, d := range docs {
				if d.Probe != nil && d.Probe.Failed > 0 {
					fmt.Fprintf(s.Log, "objbench serve: scheduled round on %s: %d requests failed\n", d.Target.URL, d.Probe.Failed)
				}
			}
		}
	}
}

func httpError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": oneLine(err.Error())})
}

// oneLine keeps an error on one line: SDK errors sometimes span several.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
