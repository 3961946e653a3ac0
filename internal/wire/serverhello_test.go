package wire

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net"
	"sync"
	"testing"
)

// serverRecords runs a handshake between crypto/tls's client and server
// in this process and returns the bodies of the server's handshake
// records, in order, up to its first application data.
func serverRecords(t *testing.T, client, server *tls.Config) [][]byte {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var mu sync.Mutex
	var sent bytes.Buffer
	srv := tls.Server(teeConn{Conn: sc, mu: &mu, w: &sent}, server)
	done := make(chan error, 1)
	go func() { done <- srv.Handshake(); srv.Close() }()
	cl := tls.Client(cc, client)
	if err := cl.Handshake(); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	cl.Close()
	if err := <-done; err != nil {
		t.Fatalf("server handshake: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var out [][]byte
	b := sent.Bytes()
	for len(b) >= 5 && b[0] != recAppData {
		n := int(binary.BigEndian.Uint16(b[3:5]))
		if b[0] == recHandshake { // (not the ChangeCipherSpec after a retry)
			out = append(out, b[5:5+n])
		}
		b = b[5+n:]
	}
	return out
}

// teeConn copies what is written to it into w.
type teeConn struct {
	net.Conn
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (c teeConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.w.Write(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func TestReadServerHello(t *testing.T) {
	cert := testCert(t)
	server := func(max uint16, protos []string, curves ...tls.CurveID) *tls.Config {
		return &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: max, NextProtos: protos, CurvePreferences: curves}
	}
	client := func(protos []string, curves ...tls.CurveID) *tls.Config {
		return &tls.Config{InsecureSkipVerify: true, ServerName: "bucket.test", NextProtos: protos, CurvePreferences: curves}
	}
	h2 := []string{"h2", "http/1.1"}
	for _, tc := range []struct {
		name           string
		client, server *tls.Config
		// retries are the server's handshake records before its ServerHello.
		retries int
		want    ServerHelloFacts
	}{
		{"TLS 1.3, h2 offered: its ALPN encrypted", client(h2), server(tls.VersionTLS13, h2), 0,
			ServerHelloFacts{Version: "1.3", Cipher: "TLS_AES_128_GCM_SHA256"}},
		{"TLS 1.2, h2", client(h2), server(tls.VersionTLS12, h2), 0,
			ServerHelloFacts{Version: "1.2", Cipher: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", ALPN: "h2"}},
		{"TLS 1.2, HTTP/1.1 only", client(h2), server(tls.VersionTLS12, []string{"http/1.1"}), 0,
			ServerHelloFacts{Version: "1.2", Cipher: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", ALPN: "http/1.1"}},
		{"TLS 1.2, no ALPN", client(nil), server(tls.VersionTLS12, nil), 0,
			ServerHelloFacts{Version: "1.2", Cipher: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}},
		{"TLS 1.3 after a HelloRetryRequest", client(h2, tls.X25519, tls.CurveP256), server(tls.VersionTLS13, h2, tls.CurveP256), 1,
			ServerHelloFacts{Version: "1.3", Cipher: "TLS_AES_128_GCM_SHA256"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := serverRecords(t, tc.client, tc.server)
			if len(recs) <= tc.retries {
				t.Fatalf("%d handshake records from the server", len(recs))
			}
			for i := range tc.retries {
				if f, ok := ReadServerHello(recs[i]); ok {
					t.Errorf("record %d (a HelloRetryRequest) read as %+v", i, f)
				}
			}
			rec := recs[tc.retries]
			got, ok := ReadServerHello(rec)
			if !ok || got != tc.want {
				t.Errorf("ReadServerHello = %+v, %v; want %+v", got, ok, tc.want)
			}
			// A ServerHello cut short, or a record that starts with another
			// message, says nothing.
			n := 4 + int(rec[1])<<16 | int(rec[2])<<8 | int(rec[3])
			for _, bad := range [][]byte{rec[:3], rec[:n-1], append([]byte{hsEncryptedExts}, rec[1:]...)} {
				if f, ok := ReadServerHello(bad); ok {
					t.Errorf("%d bytes of message type %d read as %+v", len(bad), bad[0], f)
				}
			}
		})
	}
}
