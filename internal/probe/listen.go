package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/usage"
)

// ListenAddr is where serve listens: listen as given, else 127.0.0.1 with
// port (Cloud Run's $PORT) or 8080; a listen without a port ("0.0.0.0" in
// a container) takes port too.
func ListenAddr(listen, port string) (string, error) {
	if port == "" {
		port = "8080"
	}
	if listen == "" {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if _, _, err := net.SplitHostPort(listen); err == nil {
		return listen, nil
	}
	host := strings.Trim(listen, "[]")
	if host == "" || strings.ContainsAny(host, "/ ") {
		return "", fmt.Errorf("%q: use HOST:PORT, or HOST alone to take $PORT", listen)
	}
	return net.JoinHostPort(host, port), nil
}

// IsLoopback says whether addr's host is loopback only: beyond it, POST
// /probe needs a token unless the platform authenticates callers.
func IsLoopback(addr string) bool {
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

// ServeSettings are serve's own: the address it listens on (Listen, see
// ListenAddr), how often it runs a round unasked (Every; 0: only on
// request), the bearer token POST /probe must carry (Token), and NoAuth,
// when the platform authenticates callers instead.
type ServeSettings struct {
	Listen string
	Every  time.Duration
	Token  string
	NoAuth bool
}

// Check checks serve's settings before it listens: no report, as a service
// has no "after the run" (every round is saved, to be drawn later); a
// schedule of 0 or at least a second; the address (ListenAddr, with
// $PORT); and beyond loopback a bearer token unless NoAuth. The token is
// Token, else $OBJBENCH_TOKEN, which keeps it out of the command line
// (and ps). getenv reads the environment (os.Getenv). It returns the
// address to listen on and the token; every error is the user's to fix.
func (s ServeSettings) Check(report string, getenv func(string) string) (addr, token string, err error) {
	if report != "" {
		return "", "", usage.Errorf("serve writes no --report: every round is saved, so 'objbench report RUN' draws any of them")
	}
	if token = s.Token; token == "" {
		token = getenv("OBJBENCH_TOKEN")
	}
	if s.Every < 0 || (s.Every > 0 && s.Every < time.Second) {
		return "", "", usage.Errorf("--every %s: use 0 or at least 1s", s.Every)
	}
	if addr, err = ListenAddr(s.Listen, getenv("PORT")); err != nil {
		return "", "", usage.Errorf("--listen %w", err)
	}
	if !IsLoopback(addr) && token == "" && !s.NoAuth {
		return "", "", usage.Errorf("listening on %s (beyond loopback) needs a bearer token: --token or OBJBENCH_TOKEN, or --allow-unauthenticated when the platform authenticates callers", addr)
	}
	return addr, token, nil
}

// Serve answers on ln until ctx ends, with a round on every target each
// every (0: none); then it stops taking requests and lets rounds in flight
// answer (SIGTERM on Cloud Run), for at most 25 s.
func (s *Server) Serve(ctx context.Context, ln net.Listener, every time.Duration) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		// Rounds in flight finish on SIGTERM: Shutdown waits for them.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	var wg sync.WaitGroup
	if every > 0 {
		wg.Go(func() { s.Schedule(ctx, every) })
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(s.Log, "objbench serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// Invoke is one Lambda invocation: event is a POST /probe body (lenient:
// a scheduler's event has fields of its own, and is then ignored), the
// answer the round's document, or {"schema", "probes"} for several.
func (p *Prober) Invoke(ctx context.Context, defaults Options, event json.RawMessage) (json.RawMessage, error) {
	var req Request
	if len(event) > 0 && string(event) != "null" {
		if err := json.Unmarshal(event, &req); err != nil {
			req = Request{}
		}
	}
	o, err := req.Apply(defaults)
	if err != nil {
		return nil, err
	}
	targets, err := p.Find(req.Target)
	if err != nil {
		return nil, err
	}
	docs, _, err := p.Round(ctx, targets, o)
	if err != nil && len(docs) == 0 {
		return nil, err
	}
	out, err := document.EncodeRounds(docs)
	if err != nil {
		return nil, fmt.Errorf("encode the round's document: %w", err)
	}
	return json.RawMessage(bytes.TrimSpace(out)), nil
}
