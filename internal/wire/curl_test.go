package wire

import (
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// curl (OpenSSL's TLS, its SSLKEYLOGFILE) picks the TLS 1.3 suites Go's
// client does not let a test force: ChaCha20-Poly1305 and AES-256-GCM,
// and HTTP/2 from another implementation than Go's.
func TestDecodeCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	cases := []struct {
		name, cipher string
		args         []string
		h2           bool
	}{
		{name: "tls13-chacha20", cipher: "TLS_CHACHA20_POLY1305_SHA256", args: []string{"--tlsv1.3", "--tls13-ciphers", "TLS_CHACHA20_POLY1305_SHA256", "--http1.1"}},
		{name: "tls13-aes256gcm", cipher: "TLS_AES_256_GCM_SHA384", args: []string{"--tlsv1.3", "--tls13-ciphers", "TLS_AES_256_GCM_SHA384", "--http1.1"}},
		{name: "tls13-chacha20-h2", cipher: "TLS_CHACHA20_POLY1305_SHA256", args: []string{"--tlsv1.3", "--tls13-ciphers", "TLS_CHACHA20_POLY1305_SHA256", "--http2"}, h2: true},
		{name: "tls12-chacha20", cipher: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", args: []string{"--tlsv1.2", "--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-CHACHA20-POLY1305", "--http1.1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newTestWire(t, 5*time.Millisecond)
			srv := &seen{}
			cfg := &tls.Config{Certificates: []tls.Certificate{testCert(t)}, NextProtos: []string{"h2", "http/1.1"},
				CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}
			hs := &http.Server{Handler: srv.handler(), TLSConfig: cfg, ReadHeaderTimeout: 5 * time.Second}
			hs.Protocols = new(http.Protocols)
			hs.Protocols.SetHTTP1(true)
			hs.Protocols.SetHTTP2(true)
			ln := tls.NewListener(w.listen(t, testPort), cfg)
			go func() { _ = hs.Serve(ln) }()
			defer hs.Close()
			addr := w.relay(t, testPort)
			keyfile := filepath.Join(t.TempDir(), "keys")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			args := append([]string{"-sSk", "-o", "/dev/null", "--resolve", "bucket.test:443:" + strings.Split(addr, ":")[0],
				"--connect-to", "bucket.test:443:" + addr}, c.args...)
			args = append(args, "https://bucket.test/obj/70000", "https://bucket.test/throttle", "-X", "GET")
			cmd := exec.CommandContext(ctx, curl, args...)
			cmd.Env = append(os.Environ(), "SSLKEYLOGFILE="+keyfile)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("curl: %v: %s", err, out)
			}
			time.Sleep(100 * time.Millisecond)
			keylog, err := os.ReadFile(keyfile)
			if err != nil || len(keylog) == 0 {
				t.Skipf("curl wrote no key log (%v): its TLS library ignores SSLKEYLOGFILE", err)
			}
			r := run{seen: srv.all(), packets: w.captured(), keylog: keylog}
			res := decode(t, r, true)
			got := requestsOf(res)
			if len(got) != len(r.seen) || len(got) != 2 {
				t.Fatalf("requests: got %d, the server saw %d", len(got), len(r.seen))
			}
			for i, q := range got {
				s := r.seen[i]
				if q.Method != s.method || q.Path != s.path || q.Status != s.status || q.RequestID != s.id {
					t.Errorf("request %d: got %s %s %d %q, the server saw %+v", i, q.Method, q.Path, q.Status, q.RequestID, s)
				}
			}
			if got[0].BytesOut != 70000 {
				t.Errorf("response body %d bytes, want 70000", got[0].BytesOut)
			}
			cn := res.Conns[0]
			wantALPN := "http/1.1"
			if c.h2 {
				wantALPN = "h2"
			}
			if cn.Cipher != c.cipher || cn.Read != "decrypted" || cn.ALPN != wantALPN {
				t.Errorf("conn: cipher %q read %q ALPN %q, want %q decrypted %q", cn.Cipher, cn.Read, cn.ALPN, c.cipher, wantALPN)
			}
			if !c.h2 {
				inf := decode(t, r, false)
				if n := len(requestsOf(inf)); n != len(r.seen) {
					t.Errorf("without keys: %d requests inferred, the server saw %d", n, len(r.seen))
				}
			}
		})
	}
}
