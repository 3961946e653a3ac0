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

// CheckServe checks serve's settings: a schedule of 0 or at least a
// second, the address (see ListenAddr; port is $PORT), and beyond
// loopback a bearer token unless noAuth says the platform authenticates
// callers. It returns the address to listen on; every error is the user's
// to fix.
func CheckServe(listen, port string, every time.Duration, token string, noAuth bool) (string, error) {
	if every < 0 || (every > 0 && every < time.Second) {
		return "", fmt.Errorf("--every %s: use 0 or at least 1s", every)
	}
	addr, err := ListenAddr(listen, port)
	if err != nil {
		return "", fmt.Errorf("--listen %w", err)
	}
	if !IsLoopback(addr) && token == "" && !noAuth {
		return "", fmt.Errorf("listening on %s (beyond loopback) needs a bearer token: --token or OBJBENCH_TOKEN, or --allow-unauthenticated when the platform authenticates callers", addr)
	}
	return addr, nil
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
