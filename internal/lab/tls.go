package lab

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// authority is an in-memory CA made for one lab: its key never leaves the
// process; clients trust its certificate through RootCAs (or the PEM file
// `objbench lab` writes).
type authority struct {
	certPEM []byte
	pool    *x509.CertPool
	server  tls.Certificate
	// serverCertPEM and serverKeyPEM are for a child server (Azurite)
	// that reads files.
	serverCertPEM, serverKeyPEM []byte
}

func newAuthority() (*authority, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("lab CA: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "objbench lab CA", Organization: []string{"objbench"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("lab CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("lab CA: %w", err)
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("lab certificate: %w", err)
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost", "*." + Domain},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, serverAddr}, // serverAddr: the netns path's
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("lab certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return nil, fmt.Errorf("lab certificate: %w", err)
	}
	return &authority{
		serverCertPEM: append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})...),
		serverKeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		certPEM:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pool:          pool,
		server:        tls.Certificate{Certificate: [][]byte{srvDER, caDER}, PrivateKey: srvKey},
	}, nil
}

// serverConfig offers HTTP/2 and HTTP/1.1 with TLS up to maxVersion.
func (a *authority) serverConfig(maxVersion uint16) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{a.server},
		MinVersion:   tls.VersionTLS12,
		MaxVersion:   maxVersion,
		NextProtos:   []string{"h2", "http/1.1"},
	}
}
