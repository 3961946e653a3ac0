package wire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/buffer"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/adapters/gonet"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/link/channel"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/network/ipv4"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/transport/tcp"
)

var (
	clientIP = tcpip.AddrFrom4([4]byte{10, 9, 0, 2})
	serverIP = tcpip.AddrFrom4([4]byte{10, 9, 0, 1})
)

// wire is two netstack stacks, a client's and a server's, joined by a
// path that delays each direction by oneWay; every packet is handed to
// tap at the client's side (what the client sends before its delay,
// what it receives after), as a capture at the program's edge sees it.
type testWire struct {
	client, server *stack.Stack
	cep, sep       *channel.Endpoint
	cancel         context.CancelFunc
	wg             sync.WaitGroup
	mu             sync.Mutex
	packets        []Packet
	// dropEvery, when set, drops every Nth large packet toward the
	// client before the tap (the path lost it; the server sends it again)
	dropEvery int
	large     int
}

func newTestWire(t *testing.T, oneWay time.Duration) *testWire {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &testWire{cancel: cancel}
	w.cep, w.sep = channel.New(1024, 1500, ""), channel.New(1024, 1500, "")
	w.client = newTestStack(t, w.cep, clientIP)
	w.server = newTestStack(t, w.sep, serverIP)
	w.wg.Add(2)
	go w.pump(ctx, w.cep, w.sep, oneWay, true)
	go w.pump(ctx, w.sep, w.cep, oneWay, false)
	t.Cleanup(func() {
		cancel()
		w.cep.Close()
		w.sep.Close()
		w.wg.Wait()
		w.client.Close()
		w.server.Close()
	})
	return w
}

func newTestStack(t *testing.T, ep *channel.Endpoint, addr tcpip.Address) *stack.Stack {
	s := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol},
	})
	if e := s.CreateNIC(1, ep); e != nil {
		t.Fatalf("NIC: %s", e)
	}
	if e := s.AddProtocolAddress(1, tcpip.ProtocolAddress{Protocol: ipv4.ProtocolNumber, AddressWithPrefix: addr.WithPrefix()}, stack.AddressProperties{}); e != nil {
		t.Fatalf("address: %s", e)
	}
	s.SetRouteTable([]tcpip.Route{{Destination: header.IPv4EmptySubnet, NIC: 1}})
	sack := tcpip.TCPSACKEnabled(true)
	_ = s.SetTransportProtocolOption(tcp.ProtocolNumber, &sack)
	return s
}

type delayed struct {
	at   time.Time
	data []byte
}

// pump carries packets from one stack to the other, tapping them at the
// client's side.
func (w *testWire) pump(ctx context.Context, from, to *channel.Endpoint, oneWay time.Duration, fromClient bool) {
	defer w.wg.Done()
	line := make(chan delayed, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p := range line {
			if d := time.Until(p.at); d > 0 {
				time.Sleep(d)
			}
			if !fromClient {
				if w.drop(p.data) {
					continue
				}
				w.tap(p.data)
			}
			pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(p.data)})
			to.InjectInbound(ipv4.ProtocolNumber, pkt)
			pkt.DecRef()
		}
	}()
	defer func() { close(line); <-done }()
	for {
		pkt := from.ReadContext(ctx)
		if pkt == nil {
			return
		}
		buf := pkt.ToBuffer()
		data := buf.Flatten()
		buf.Release()
		pkt.DecRef()
		if fromClient {
			w.tap(data)
		}
		select {
		case line <- delayed{at: time.Now().Add(oneWay), data: data}:
		case <-ctx.Done():
			return
		}
	}
}

func (w *testWire) drop(data []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dropEvery == 0 || len(data) < 1000 {
		return false
	}
	w.large++
	return w.large%w.dropEvery == 0
}

func (w *testWire) tap(data []byte) {
	w.mu.Lock()
	w.packets = append(w.packets, Packet{Time: time.Now(), Data: append([]byte(nil), data...)})
	w.mu.Unlock()
}

// captured is a copy of the packets seen so far.
func (w *testWire) captured() []Packet {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Packet(nil), w.packets...)
}

func (w *testWire) listen(t *testing.T, port uint16) net.Listener {
	ln, err := gonet.ListenTCP(w.server, tcpip.FullAddress{NIC: 1, Addr: serverIP, Port: port}, ipv4.ProtocolNumber)
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func (w *testWire) dial(ctx context.Context, port uint16) (net.Conn, error) {
	return gonet.DialContextTCP(ctx, w.client, tcpip.FullAddress{NIC: 1, Addr: serverIP, Port: port}, ipv4.ProtocolNumber)
}

// relay listens on the host's loopback and carries each connection onto
// the client stack, so a program outside (curl) crosses the wire.
func (w *testWire) relay(t *testing.T, port uint16) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s, err := w.dial(context.Background(), port)
				if err != nil {
					t.Logf("relay: %v", err)
					return
				}
				defer s.Close()
				go func() {
					_, _ = io.Copy(s, c)
					if cw, ok := s.(interface{ CloseWrite() error }); ok {
						_ = cw.CloseWrite()
					}
				}()
				_, _ = io.Copy(c, s)
			}()
		}
	}()
	return ln.Addr().String()
}

// seen is what the test's server saw: each request's method, path and
// the id it answered with.
type seen struct {
	mu   sync.Mutex
	reqs []seenReq
}

type seenReq struct {
	method, path, id string
	status, body     int
}

// objectServer answers like a bucket: GET /obj/N gives N bytes, PUT reads
// the body, /slow waits, /throttle answers 503, /moved redirects; each
// answer carries an x-amz-request-id.
func (s *seen) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		id := fmt.Sprintf("REQ%04d", len(s.reqs)+1)
		s.reqs = append(s.reqs, seenReq{method: r.Method, path: r.URL.Path, id: id})
		i := len(s.reqs) - 1
		s.mu.Unlock()
		w.Header().Set("x-amz-request-id", id)
		status, n := http.StatusOK, 0
		switch {
		case r.URL.Path == "/throttle":
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", "1")
		case r.URL.Path == "/moved":
			status = http.StatusTemporaryRedirect
			w.Header().Set("Location", "/obj/10")
		case r.URL.Path == "/chunked":
			// no length: HTTP/1.1 frames it in chunks, flushed apart
			w.WriteHeader(status)
			for range 3 {
				_, _ = w.Write(make([]byte, 10000))
				w.(http.Flusher).Flush()
			}
			s.mu.Lock()
			s.reqs[i].status, s.reqs[i].body = status, 30000
			s.mu.Unlock()
			return
		case r.Method == http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			n = len(b)
		case len(r.URL.Path) > 5 && r.URL.Path[:5] == "/obj/":
			size, _ := strconv.Atoi(r.URL.Path[5:])
			w.Header().Set("Content-Length", strconv.Itoa(size))
			w.WriteHeader(status)
			buf := make([]byte, 32<<10)
			for left := size; left > 0; {
				k := min(left, len(buf))
				_, _ = w.Write(buf[:k])
				left -= k
			}
			s.mu.Lock()
			s.reqs[i].status, s.reqs[i].body = status, size
			s.mu.Unlock()
			return
		}
		w.WriteHeader(status)
		s.mu.Lock()
		s.reqs[i].status, s.reqs[i].body = status, n
		s.mu.Unlock()
	})
}

func (s *seen) all() []seenReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenReq(nil), s.reqs...)
}

// testCert is a self-signed ECDSA certificate for the test's server.
func testCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bucket.test"},
		DNSNames: []string{"bucket.test"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
