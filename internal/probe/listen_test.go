package probe

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/usage"
)

func TestListenAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		listen, port, want string
		wantErr            bool
	}{
		{"", "", "127.0.0.1:8080", false},
		{"", "9090", "127.0.0.1:9090", false},
		{"0.0.0.0", "9090", "0.0.0.0:9090", false},
		{"0.0.0.0:7000", "9090", "0.0.0.0:7000", false},
		{"[::1]", "", "[::1]:8080", false},
		{"a/b", "", "", true},
		{"my host", "", "", true},
		{"[]", "", "", true},
	}
	for _, tt := range tests {
		got, err := ListenAddr(tt.listen, tt.port)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ListenAddr(%q, %q) = %q, %v; want %q (error %v)", tt.listen, tt.port, got, err, tt.want, tt.wantErr)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:80": true, "localhost:80": true, "[::1]:80": true,
		"0.0.0.0:80": false, "10.0.0.1:80": false, "example.com:80": false, "127.0.0.1": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestServeSettingsCheck: serve refuses a report, a schedule under a
// second and a bad address, and beyond loopback wants a token (the flag's,
// else $OBJBENCH_TOKEN) unless the platform authenticates; every refusal
// is a usage error.
func TestServeSettingsCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s               ServeSettings
		report          string
		port, envToken  string
		want, wantToken string
		err             string
	}{
		{want: "127.0.0.1:8080"},
		{s: ServeSettings{Every: time.Minute}, port: "9000", want: "127.0.0.1:9000"},
		{report: "r.html", err: "serve writes no --report"},
		{s: ServeSettings{Every: 500 * time.Millisecond}, err: "--every"},
		{s: ServeSettings{Every: -time.Second}, err: "--every"},
		{s: ServeSettings{Listen: "a b"}, err: "--listen"},
		{s: ServeSettings{Listen: "0.0.0.0:8080"}, err: "needs a bearer token"},
		{s: ServeSettings{Listen: "0.0.0.0:8080", Token: "t"}, want: "0.0.0.0:8080", wantToken: "t"},
		{s: ServeSettings{Listen: "0.0.0.0:8080"}, envToken: "e", want: "0.0.0.0:8080", wantToken: "e"},
		{s: ServeSettings{Token: "t"}, envToken: "e", want: "127.0.0.1:8080", wantToken: "t"},
		{s: ServeSettings{Listen: "0.0.0.0", NoAuth: true}, port: "8081", want: "0.0.0.0:8081"},
	}
	for _, c := range cases {
		env := map[string]string{"PORT": c.port, "OBJBENCH_TOKEN": c.envToken}
		got, token, err := c.s.Check(c.report, func(k string) string { return env[k] })
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !usage.Is(err) {
				t.Errorf("%+v: %q, %v; want a usage error naming %q", c, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || token != c.wantToken {
			t.Errorf("%+v: %q, token %q, %v; want %q, token %q", c, got, token, err, c.want, c.wantToken)
		}
	}
}
