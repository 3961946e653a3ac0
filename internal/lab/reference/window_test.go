package reference

import (
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestRwndLimited: the time a kernel sender spends held by its peer's
// receive window is read from TCP_INFO (TimerDecides sets aside a timed
// reference held so): here by a reader that waits 300 ms before reading.
// A connection that is no kernel socket reads 0.
func TestRwndLimited(t *testing.T) {
	if c1, c2 := net.Pipe(); rwndLimited(c1) != 0 {
		t.Errorf("net.Pipe: %v, want 0", rwndLimited(c1))
		c1.Close()
		c2.Close()
	}
	if runtime.GOOS != "linux" {
		t.Skip("TCP_INFO's rwnd_limited is Linux's")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const size = 4 << 20
	sent := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(sent)
			return
		}
		_, _ = c.Write(make([]byte, size))
		sent <- c
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(300 * time.Millisecond)
	if _, err := io.CopyN(io.Discard, c, size); err != nil {
		t.Fatal(err)
	}
	s, ok := <-sent
	if !ok {
		t.Fatal("accept failed")
	}
	defer s.Close()
	if got := rwndLimited(s); got < 200*time.Millisecond {
		t.Errorf("sender held 300 ms by a full receive buffer: rwnd_limited %v, want at least 200ms", got)
	} else {
		t.Logf("rwnd_limited %v", got)
	}
}
