package explain

import (
	"net"
	"sync"
)

// loopServer is a listener on loopback that serves each connection on a
// goroutine of its own and, on close, closes every connection still open
// (a tunnel's far side too, once tracked) and waits for them: the watch
// proxy and the CONNECT tunnel are both one.
type loopServer struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

// start serves ln's connections with serve until close.
func (s *loopServer) start(ln net.Listener, serve func(net.Conn)) {
	s.ln, s.open = ln, map[net.Conn]struct{}{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.track(c, true)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.track(c, false)
				serve(c)
			}()
		}
	}()
}

// track adds c to (or drops it from) the connections close closes.
func (s *loopServer) track(c net.Conn, add bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		s.open[c] = struct{}{}
	} else {
		delete(s.open, c)
	}
}

// url is the proxy URL a program is given.
func (s *loopServer) url() string { return "http://" + s.ln.Addr().String() }

// close stops listening, closes every connection still open, and waits.
func (s *loopServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.open {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
