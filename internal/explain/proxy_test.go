package explain

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestWatch: the proxy passes a local server's requests on (plain and
// tunnelled), refuses a real cloud's host, and notes every host once.
func TestWatch(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "")
	t.Setenv("https_proxy", "")
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("http_proxy", "")
	t.Setenv("ALL_PROXY", "")
	t.Setenv("all_proxy", "")
	w := startWatch(net.Listen, nil)
	if w == nil {
		t.Fatal("no proxy")
	}
	defer w.Close()
	if env := strings.Join(w.env(), " "); !strings.Contains(env, "NO_PROXY=127.0.0.1,localhost") || !strings.Contains(env, "HTTPS_PROXY=http://127.0.0.1:") {
		t.Errorf("env %s", env)
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "plain") }))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "tunnel") }))
	defer secure.Close()
	proxyURL, _ := url.Parse(w.srv.url())
	tr := secure.Client().Transport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(proxyURL)
	c := &http.Client{Transport: tr}
	for _, tc := range []struct{ url, want string }{{plain.URL, "plain"}, {secure.URL, "tunnel"}} {
		resp, err := c.Get(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != tc.want {
			t.Errorf("%s through the proxy: %q", tc.url, b)
		}
	}
	if _, err := c.Get("https://objbench.s3.amazonaws.com/k"); err == nil {
		t.Error("a real cloud's host was not refused")
	}
	hosts := w.Hosts()
	if len(hosts) != 2 || hosts[0] != "127.0.0.1" || hosts[1] != "objbench.s3.amazonaws.com" {
		t.Errorf("hosts %v", hosts)
	}
	if got := realCloud(hosts, ""); !strings.Contains(got, "AWS (objbench.s3.amazonaws.com)") || !strings.Contains(got, "AWS_ENDPOINT_URL") {
		t.Errorf("realCloud: %q", got)
	}
}
