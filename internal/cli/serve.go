package cli

import (
	"github.com/objbench/objbench/internal/document"

	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/probe"
	"github.com/objbench/objbench/internal/telemetry"
	"github.com/objbench/objbench/internal/units"
)

// serveFlags are the flags of `objbench serve`.
type serveFlags struct {
	probeFlags
	targets []string
	listen  string
	every   time.Duration
	token   string
	noAuth  bool
}

func newServeCmd(g *globals, stdout, stderr io.Writer) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Probe as a service: POST /probe, GET /metrics, with connections kept across invocations",
		Long: `serve runs the probe as an HTTP service, the way seed 000 deployed it as a cloud
function: each POST /probe runs one round on the process-wide clients, so connections
live across invocations as the platform allows, and seq continues from round to round.

  POST /probe    body (all optional): {"count": 50, "pool": 10, "size": "1KiB",
                 "prepare": false, "target": "s3://..."}; answers the round's objbench/v1
                 document (its first_request is the round's first request), or
                 {"schema", "probes": [...]} when it probed several targets
  GET /metrics   Prometheus: TTFB, total and phase histograms by target, op, strategy,
                 reused; requests and errors by class; rounds
  GET /healthz   {"status": "ok", ...}

Targets are --target (repeatable; default the embedded lab); a request may name one of
them, never another. The address is 127.0.0.1:$PORT (Cloud Run's convention), else
127.0.0.1:8080, unless --listen says otherwise; a HOST alone takes $PORT (--listen 0.0.0.0
in a container). Beyond loopback a bearer token (--token or OBJBENCH_TOKEN) guards
/probe: objbench refuses to listen there without one unless --allow-unauthenticated says
the platform authenticates callers (Cloud Run with IAM). --every also runs rounds on a
schedule. SIGTERM stops it gracefully: rounds in flight answer, traces are flushed.`,
		Example: `  objbench serve                                        # the lab, on 127.0.0.1:8080
  curl -X POST localhost:8080/probe -d '{"count": 20}'
  objbench serve --target s3://my-bucket --prepare --every 1m --otlp http://127.0.0.1:4318
  PORT=8080 OBJBENCH_TOKEN=... objbench serve --listen 0.0.0.0:8080 --target gs://my-bucket`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), g, &f, cmd, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	f.probeFlags.register(fl)
	fl.StringArrayVar(&f.targets, "target", nil, "a target to probe (repeatable): s3://, gs://, az://, lab[:PROFILE] (default the lab)")
	fl.StringVar(&f.listen, "listen", "", "address to listen on (default 127.0.0.1:$PORT, else 127.0.0.1:8080)")
	fl.DurationVar(&f.every, "every", 0, "also run a round on every target at this interval, e.g. 1m (0: only on request)")
	fl.StringVar(&f.token, "token", "", "bearer token that POST /probe must carry (default $OBJBENCH_TOKEN)")
	fl.BoolVar(&f.noAuth, "allow-unauthenticated", false, "listen beyond loopback without a token: the platform authenticates callers")
	_ = fl.MarkHidden("report") // refused in runServe: a service has no "after the run"
	return cmd
}

// listenAddr is --listen, else 127.0.0.1 with $PORT or 8080.
// A --listen without a port ("0.0.0.0" in a container) takes $PORT too.
func (f *serveFlags) listenAddr() (string, error) {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	if f.listen == "" {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if _, _, err := net.SplitHostPort(f.listen); err == nil {
		return f.listen, nil
	}
	host := strings.Trim(f.listen, "[]")
	if host == "" || strings.ContainsAny(host, "/ ") {
		return "", usagef("--listen %q: use HOST:PORT, or HOST alone to take $PORT", f.listen)
	}
	return net.JoinHostPort(host, port), nil
}

// isLoopback says whether addr's host is loopback only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func runServe(ctx context.Context, g *globals, f *serveFlags, cmd *cobra.Command, stdout, stderr io.Writer) error {
	o, err := f.options()
	if err != nil {
		return err
	}
	if f.report != "" {
		return usagef("serve writes no --report: every round is saved, so 'objbench report RUN' draws any of them")
	}
	if f.every < 0 || (f.every > 0 && f.every < time.Second) {
		return usagef("--every %s: use 0 or at least 1s", f.every)
	}
	addr, err := f.listenAddr()
	if err != nil {
		return err
	}
	token := f.token
	if token == "" {
		token = os.Getenv("OBJBENCH_TOKEN")
	}
	if !isLoopback(addr) && token == "" && !f.noAuth {
		return usagef("listening on %s (beyond loopback) needs a bearer token: --token or OBJBENCH_TOKEN, or --allow-unauthenticated when the platform authenticates callers", addr)
	}
	p, err := openProber(ctx, g, f.targets, &f.probeFlags, cmd.Flags(), stderr)
	if err != nil {
		return err
	}
	defer p.Close(context.Background())
	p.metrics = telemetry.NewMetrics()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	s := &server{p: p, defaults: o, token: token, started: time.Now(), stderr: stderr}
	srv := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second,
		// Rounds in flight finish on SIGTERM: Shutdown waits for them.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	var targets []string
	for _, t := range p.targets {
		targets = append(targets, t.Info.URL)
	}
	fmt.Fprintf(stdout, "objbench serve: listening on http://%s (POST /probe, GET /metrics, GET /healthz); targets %s\n", ln.Addr(), strings.Join(targets, ", "))
	if token != "" {
		fmt.Fprintln(stdout, "POST /probe requires the bearer token")
	}

	var wg sync.WaitGroup
	if f.every > 0 {
		wg.Go(func() { s.schedule(ctx, f.every) })
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// SIGTERM: stop taking requests, let running rounds answer, flush traces.
	fmt.Fprintln(stderr, "objbench serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// server is the HTTP face of a prober.
type server struct {
	p        *prober
	defaults probe.Options
	token    string
	started  time.Time
	stderr   io.Writer
	rounds   atomic.Int64
	inFlight atomic.Int64
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /probe", s.handleProbe)
	mux.Handle("GET /metrics", s.p.metrics.Handler())
	mux.HandleFunc("GET /healthz", s.handleHealth)
	return mux
}

// probeRequest is POST /probe's body: seed 000's scheduler options.
type probeRequest struct {
	Count   int             `json:"count"`
	Pool    int             `json:"pool"`
	Size    json.RawMessage `json:"size"` // 1024 or "1KiB"
	Prepare bool            `json:"prepare"`
	Target  string          `json:"target"`
}

// parse merges the request into the defaults.
func (s *server) parse(r *http.Request) (probe.Options, string, error) {
	o := s.defaults
	var req probeRequest
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
	o, err = req.apply(o)
	return o, req.Target, err
}

// apply merges the request's options into o and checks them.
func (req probeRequest) apply(o probe.Options) (probe.Options, error) {
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

func (s *server) authorized(r *http.Request) bool {
	if s.token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

func (s *server) handleProbe(w http.ResponseWriter, r *http.Request) {
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
	targets, err := s.p.find(name)
	if err != nil {
		httpError(w, http.StatusBadRequest, err)
		return
	}
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	docs, _, err := s.p.round(r.Context(), targets, o)
	s.rounds.Add(1)
	if err != nil && len(docs) == 0 {
		status := http.StatusBadGateway
		if errors.Is(err, probe.ErrPoolMissing) {
			status = http.StatusConflict
		}
		if r.Context().Err() != nil {
			status = http.StatusServiceUnavailable
		}
		httpError(w, status, err)
		return
	}
	if err != nil {
		fmt.Fprintf(s.stderr, "objbench serve: round stopped: %s\n", oneLine(err.Error()))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = writeProbeJSON(w, docs)
}

func (s *server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var targets []map[string]any
	for _, t := range s.p.targets {
		targets = append(targets, map[string]any{"target": t.Info.URL, "seq": t.Seq()})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"status": "ok", "version": document.Version(), "uptime_s": time.Since(s.started).Seconds(),
		"rounds": s.rounds.Load(), "in_flight": s.inFlight.Load(),
		"goroutines": runtime.NumGoroutine(), "heap_bytes": ms.HeapAlloc, "targets": targets,
	})
}

// schedule runs a round on every target at each tick until ctx ends.
func (s *server) schedule(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			docs, _, err := s.p.round(ctx, s.p.targets, s.defaults)
			s.rounds.Add(1)
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(s.stderr, "objbench serve: scheduled round: %s\n", oneLine(err.Error()))
			}
			for _, d := range docs {
				if d.Probe != nil && d.Probe.Failed > 0 {
					fmt.Fprintf(s.stderr, "objbench serve: scheduled round on %s: %d requests failed\n", d.Target.URL, d.Probe.Failed)
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
