package probe

import (
	"strings"
	"testing"
	"time"
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

func TestCheckServe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		listen, port string
		every        time.Duration
		token        string
		noAuth       bool
		want, err    string
	}{
		{want: "127.0.0.1:8080"},
		{port: "9000", every: time.Minute, want: "127.0.0.1:9000"},
		{every: 500 * time.Millisecond, err: "--every"},
		{every: -time.Second, err: "--every"},
		{listen: "a b", err: "--listen"},
		{listen: "0.0.0.0:8080", err: "needs a bearer token"},
		{listen: "0.0.0.0:8080", token: "t", want: "0.0.0.0:8080"},
		{listen: "0.0.0.0", port: "8081", noAuth: true, want: "0.0.0.0:8081"},
	}
	for _, c := range cases {
		got, err := CheckServe(c.listen, c.port, c.every, c.token, c.noAuth)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: %q, %v; want an error naming %q", c, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %q, %v; want %q", c, got, err, c.want)
		}
	}
}
