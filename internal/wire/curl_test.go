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

// Python's ssl (its SSLKEYLOGFILE, http.client on one connection) with
// its cipher options: TLS 1.2 AES-256-GCM and TLS 1.3 ChaCha20.
func TestDecodePython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	const script = `
import http.client, ssl, sys
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
if sys.argv[2] == "1.2":
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_ciphers(sys.argv[3])
else:
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
host, port = sys.argv[1].split(":")
c = http.client.HTTPSConnection(host, int(port), context=ctx)
for method, path, body in (("GET", "/obj/40000", None), ("PUT", "/put", b"x" * 2000), ("GET", "/throttle", None)):
    c.request(method, path, body=body, headers={"Host": "bucket.test"})
    c.getresponse().read()
c.close()
`
	cases := []struct{ name, version, ciphers, want string }{
		{"tls12-aes256gcm", "1.2", "ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{"tls13", "1.3", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newTestWire(t, 5*time.Millisecond)
			srv := &seen{}
			cfg := &tls.Config{Certificates: []tls.Certificate{testCert(t)}}
			hs := &http.Server{Handler: srv.handler(), TLSConfig: cfg, ReadHeaderTimeout: 5 * time.Second}
			ln := tls.NewListener(w.listen(t, testPort), cfg)
			go func() { _ = hs.Serve(ln) }()
			defer hs.Close()
			addr := w.relay(t, testPort)
			keyfile := filepath.Join(t.TempDir(), "keys")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, py, "-c", script, addr, c.version, c.ciphers)
			cmd.Env = append(os.Environ(), "SSLKEYLOGFILE="+keyfile)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("python: %v: %s", err, out)
			}
			time.Sleep(100 * time.Millisecond)
			keylog, err := os.ReadFile(keyfile)
			if err != nil || len(keylog) == 0 {
				t.Skipf("python wrote no key log (%v)", err)
			}
			r := run{seen: srv.all(), packets: w.captured(), keylog: keylog}
			res := decode(t, r, true)
			got := requestsOf(res)
			if len(got) != len(r.seen) || len(got) != 3 {
				t.Fatalf("requests: got %d, the server saw %d", len(got), len(r.seen))
			}
			for i, q := range got {
				s := r.seen[i]
				if q.Method != s.method || q.Path != s.path || q.Status != s.status || q.RequestID != s.id {
					t.Errorf("request %d: got %s %s %d %q, the server saw %+v", i, q.Method, q.Path, q.Status, q.RequestID, s)
				}
			}
			if cn := res.Conns[0]; cn.Read != "decrypted" || c.want != "" && cn.Cipher != c.want || cn.TLSVersion != c.version {
				t.Errorf("conn: read %q cipher %q TLS %q, want decrypted %q %s", cn.Read, cn.Cipher, cn.TLSVersion, c.want, c.version)
			}
			if n := len(requestsOf(decode(t, r, false))); n != len(r.seen) {
				t.Errorf("without keys: %d requests inferred, the server saw %d", n, len(r.seen))
			}
		})
	}
}
