package netem

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

var lastServer atomic.Pointer[Conn]

// serve answers each 8-byte request with that many bytes.
func serve(t testing.TB, n *Network, port int) {
	ln, err := n.Listen(port)
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
			lastServer.Store(c.(*Conn))
			go func() {
				defer c.Close()
				buf := make([]byte, 256<<10)
				var req [8]byte
				for {
					if _, err := io.ReadFull(c, req[:]); err != nil {
						return
					}
					left := int64(binary.BigEndian.Uint64(req[:]))
					for left > 0 {
						k, err := c.Write(buf[:min(left, int64(len(buf)))])
						if err != nil {
							return
						}
						left -= int64(k)
					}
				}
			}()
		}
	}()
}

func get(t testing.TB, c net.Conn, size int64) time.Duration {
	start := time.Now()
	var req [8]byte
	binary.BigEndian.PutUint64(req[:], uint64(size))
	if _, err := c.Write(req[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, c, size); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

func newNet(t testing.TB, rtt time.Duration, rate int64, loss float64) *Network {
	p := Path{Delay: rtt / 2, Rate: rate, Loss: loss}
	b := LinuxBuffers
	if v := os.Getenv("NETEM_RDEF"); v != "" {
		b.RecvDefault, _ = strconv.Atoi(v)
	}
	srv := b
	srv.SendMax = 4 * b.RecvMax
	n, err := New(Config{Up: p, Down: p, Client: b, Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

func TestSlowStartRounds(t *testing.T) {
	rtt := 80 * time.Millisecond
	n := newNet(t, rtt, 1e9, 0)
	serve(t, n, 80)
	for _, size := range []int64{1 << 20, 4 << 20} {
		start := time.Now()
		c, err := n.Dial(context.Background(), 80)
		if err != nil {
			t.Fatal(err)
		}
		connect := time.Since(start)
		cold := get(t, c, size)
		warm := get(t, c, size)
		c.Close()
		t.Logf("%d MiB: connect %.2f RTT, cold %.2f RTT, warm %.2f RTT", size>>20,
			float64(connect)/float64(rtt), float64(cold)/float64(rtt), float64(warm)/float64(rtt))
	}
}

func BenchmarkThroughput(b *testing.B) {
	n := newNet(b, 2*time.Millisecond, 0, 0)
	serve(b, n, 80)
	c, err := n.Dial(context.Background(), 80)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	get(b, c, 1<<20)
	const size = 32 << 20
	b.SetBytes(size)
	for b.Loop() {
		get(b, c, size)
	}
}

func BenchmarkThroughputRTT(b *testing.B) {
	if v := os.Getenv("NETEM_CC"); v != "" {
		ccOpt = v
	}
	for _, rtt := range []time.Duration{0, 2 * time.Millisecond, 20 * time.Millisecond} {
		b.Run(rtt.String(), func(b *testing.B) {
			n := newNet(b, rtt, 0, 0)
			serve(b, n, 80)
			c, err := n.Dial(context.Background(), 80)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			get(b, c, 8<<20)
			const size = 32 << 20
			b.SetBytes(size)
			for b.Loop() {
				get(b, c, size)
			}
			up, down := n.Stats()
			b.Logf("up %+v down %+v client %+v server %+v %s", up, down, c.Info(), lastServer.Load().Info(), n.debug())
		})
	}
}

func TestRateLimited(t *testing.T) {
	if v := os.Getenv("NETEM_CC"); v != "" {
		ccOpt = v
	}
	if v := os.Getenv("NETEM_REC"); v != "" {
		recoveryOpt, _ = strconv.Atoi(v)
	}
	for _, rtt := range []time.Duration{40 * time.Millisecond} {
		n := newNet(t, rtt, 100e6, 0)
		serve(t, n, 80)
		c, err := n.Dial(context.Background(), 80)
		if err != nil {
			t.Fatal(err)
		}
		const size = 32 << 20
		start := time.Now()
		var req [8]byte
		binary.BigEndian.PutUint64(req[:], uint64(size))
		c.Write(req[:])
		var marks []string
		for i := 0; i < 8; i++ {
			io.CopyN(io.Discard, c, 4<<20)
			marks = append(marks, fmt.Sprintf("%.0f", time.Since(start).Seconds()*1000))
		}
		d := time.Since(start)
		t.Logf("marks ms per 4MiB: %v", marks)
		up, down := n.Stats()
		t.Logf("rtt %v: %.1f Mbit/s (%.0f%%) up %+v down %+v %s server %+v", rtt, size*8/d.Seconds()/1e6, size*8/d.Seconds()/1e6, up, down, n.debug(), lastServer.Load().Info())
		c.Close()
	}
}

func TestWindowLimited(t *testing.T) {
	rtt := 80 * time.Millisecond
	n := newNet(t, rtt, 1e9, 0)
	serve(t, n, 80)
	c, err := n.Dial(context.Background(), 80)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	get(t, c, 16<<20)
	for range 3 {
		d := get(t, c, 64<<20)
		up, down := n.Stats()
		t.Logf("64 MiB warm: %.1f MB/s; %s client %+v server %+v", 64<<20/d.Seconds()/1e6, n.debug(), c.Info(), lastServer.Load().Info())
		_, _ = up, down
	}
}
