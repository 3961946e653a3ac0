package probe

import "testing"

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
