package explain

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// watch is a forward proxy on loopback, offered to the program through
// HTTPS_PROXY and HTTP_PROXY, that notes the hosts the program reached
// for: a program that ignores the lab's endpoint variables and goes to a
// real cloud shows up there (most SDKs honour the proxy variables). It
// refuses the real clouds' hosts and passes anything else on unchanged.
// The lab's own endpoints are in NO_PROXY.
type watch struct {
	srv   loopServer
	mu    sync.Mutex
	hosts []string
	// labHosts go into NO_PROXY beside loopback.
	labHosts []string
}

// startWatch listens on 127.0.0.1 with listen (where the program is: its
// own namespace on the lab's netns path); nil when the environment already
// names a proxy (the program keeps the user's) or when it cannot listen.
// labHosts are where the program reaches the lab beyond loopback.
func startWatch(listen func(network, addr string) (net.Listener, error), labHosts []string) *watch {
	for _, v := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		if os.Getenv(v) != "" {
			return nil
		}
	}
	ln, err := listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil
	}
	w := &watch{labHosts: labHosts}
	w.srv.start(ln, w.serve)
	return w
}

// env is the program's proxy variables.
func (w *watch) env() []string {
	if w == nil {
		return nil
	}
	u := w.srv.url()
	noProxy := strings.Join(append([]string{"127.0.0.1", "localhost", "::1", ".objbench.test"}, w.labHosts...), ",")
	if v := os.Getenv("NO_PROXY"); v != "" {
		noProxy += "," + v
	}
	return []string{"HTTPS_PROXY=" + u, "https_proxy=" + u, "HTTP_PROXY=" + u, "http_proxy=" + u,
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy}
}

// Hosts are the hosts the program reached through the proxy, in order, once each.
func (w *watch) Hosts() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.hosts...)
}

func (w *watch) note(host string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, h := range w.hosts {
		if h == host {
			return
		}
	}
	w.hosts = append(w.hosts, host)
}

// serve handles one client connection: a CONNECT tunnel, or plain HTTP
// requests with absolute URLs, each passed on.
func (w *watch) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		host := req.URL.Host
		if req.Method == http.MethodConnect {
			host = req.Host
		}
		h := strings.ToLower(hostOnly(host))
		w.note(h)
		if cloudHost(h) != "" {
			// A real cloud: refused, never reached (the lab's keys would
			// be refused there anyway, and explain runs against the lab).
			_, _ = io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 65\r\nConnection: close\r\n\r\n"+
				"objbench explain: the lab's program may not reach a real cloud.\r\n")
			return
		}
		if req.Method == http.MethodConnect {
			up, err := net.DialTimeout("tcp", req.Host, 10*time.Second)
			if err != nil {
				_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
				return
			}
			w.srv.track(up, true)
			defer w.srv.track(up, false)
			_, _ = io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n")
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(up, br)
				up.Close()
				close(done)
			}()
			_, _ = io.Copy(c, up)
			c.Close()
			<-done
			return
		}
		req.RequestURI = ""
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			return
		}
		err = resp.Write(c)
		resp.Body.Close()
		if err != nil || req.Close || resp.Close {
			return
		}
	}
}

func hostOnly(hp string) string {
	if h, _, err := net.SplitHostPort(hp); err == nil {
		return h
	}
	return hp
}

// Close stops the proxy and every connection it carries, and waits.
func (w *watch) Close() {
	if w == nil {
		return
	}
	w.srv.close()
}

// cloudHost names the real cloud a host belongs to and the variable a
// program reaching it probably ignored; "" for others.
func cloudHost(host string) string {
	for _, h := range cloudHints {
		if h.host != "" && (host == h.host || strings.HasSuffix(host, "."+h.host)) {
			return "it reached for " + h.cloud + " (" + host + "), which the lab cannot see; it probably ignored " + h.variable
		}
	}
	return ""
}
