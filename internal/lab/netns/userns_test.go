//go:build linux

package netns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserNamespaceSettings: each setting that disables unprivileged user
// namespaces is named, with the sysctl that enables them; none, nil.
func TestUserNamespaceSettings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"allowed", map[string]string{"kernel/unprivileged_userns_clone": "1\n", "user/max_user_namespaces": "63000\n"}, ""},
		{"no settings", nil, ""},
		{"clone off", map[string]string{"kernel/unprivileged_userns_clone": "0\n"}, "sysctl -w kernel.unprivileged_userns_clone=1"},
		{"none allowed", map[string]string{"user/max_user_namespaces": "0\n"}, "sysctl -w user.max_user_namespaces=15000"},
		{"apparmor", map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1\n"}, "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"},
	} {
		root := t.TempDir()
		for name, v := range tc.files {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := userNamespaceSettings(root)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}

// TestTUNAccess: a missing device names the module to load.
func TestTUNAccess(t *testing.T) {
	err := tunAccess(filepath.Join(t.TempDir(), "tun"))
	if err == nil || !strings.Contains(err.Error(), "modprobe tun") {
		t.Errorf("missing device: %v", err)
	}
	if os.Geteuid() == 0 {
		return // root reads and writes any mode: TestRootlessWithoutTUN runs it as a user
	}
	p := filepath.Join(t.TempDir(), "tun")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := tunAccess(p); err == nil || !strings.Contains(err.Error(), "chmod 0666") {
		t.Errorf("mode 0400: %v", err)
	}
}
