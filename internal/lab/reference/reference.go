// Package reference holds the lab's TCP against Linux's: the same HTTP
// transfers over the same emulated wire (netem), once between the lab's
// user-space stacks (netem.Network) and once between two network
// namespaces with the kernel's TCP at both ends (netns.Pair), timed side
// by side. The grid test and bench/grid.sh are built on it.
package reference

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/netns"
)

// Case is one point of the grid.
type Case struct {
	RTT  time.Duration
	Rate int64 // bits per second each way; 0 is no cap
	// Queue is the drop-tail queue in bytes each way (0: netem's default,
	// one BDP with a floor of 256 packets).
	Queue int
	Loss  float64 // each way
	// Bursty, Reorder and Duplicate are the wire's other impairments,
	// each way (netem.Path).
	Bursty    netem.GilbertElliott
	Reorder   netem.Reorder
	Duplicate float64
	Op        string // "GET" or "PUT"
	Size      int
	Warm      bool // on a connection that has just moved the same transfer
	// N, when set, is how many transfers make the row's median (bench/grid.sh
	// -runs), instead of Runs' default.
	N int
}

func (c Case) String() string {
	s := fmt.Sprintf("%s %s %s rtt %v", temp(c.Warm), c.Op, size(c.Size), c.RTT)
	if c.Rate > 0 {
		s += fmt.Sprintf(" %gMbit q%s", float64(c.Rate)/1e6, size(c.Queue))
	}
	if c.Loss > 0 {
		s += fmt.Sprintf(" loss %g%%", c.Loss*100)
	}
	if g := c.Bursty; g.On() {
		s += fmt.Sprintf(" gemodel %g%% %g%%", g.P*100, g.R*100)
		if g.BadLoss != 1 || g.GoodLoss != 0 {
			s += fmt.Sprintf(" %g%% %g%%", g.BadLoss*100, g.GoodLoss*100)
		}
	}
	if r := c.Reorder; r.Share > 0 {
		s += fmt.Sprintf(" reorder %g%%", r.Share*100)
		if r.Correlation > 0 {
			s += fmt.Sprintf(" %g%%", r.Correlation*100)
		}
	}
	if c.Duplicate > 0 {
		s += fmt.Sprintf(" duplicate %g%%", c.Duplicate*100)
	}
	return s
}

// Random says whether the case's wire draws at random (loss of either
// model, reordering, duplication): its transfers spread run to run.
func (c Case) Random() bool {
	return c.Loss > 0 || c.Bursty.On() || c.Reorder.Share > 0 || c.Duplicate > 0
}

func temp(warm bool) string {
	if warm {
		return "warm"
	}
	return "cold"
}

func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

// BDP is the path's bandwidth-delay product in bytes (0 without a cap).
func (c Case) BDP() int { return int(float64(c.Rate) / 8 * c.RTT.Seconds()) }

// Config is the wire for the case.
func (c Case) Config() netem.Config {
	p := netem.Path{Delay: c.RTT / 2, Rate: c.Rate, Queue: c.Queue, Loss: c.Loss, Bursty: c.Bursty, Reorder: c.Reorder, Duplicate: c.Duplicate}
	return netem.Config{Up: p, Down: p}
}

// Path is one way of carrying the transfers: a server side to listen on
// and a client side to dial from.
type Path interface {
	Listen() (net.Listener, error)
	Dial(ctx context.Context) (net.Conn, error)
	// Stats are the wire's counters, each way.
	Stats() (up, down netem.Stats)
	Close() error
}

const port = 8080

type labPath struct{ n *netem.Network }

// Lab is the lab's path: its two user-space stacks across the wire, with
// the buffers the lab gives them.
func Lab(cfg netem.Config) (Path, error) {
	n, err := netem.New(cfg)
	if err != nil {
		return nil, err
	}
	return labPath{n}, nil
}

func (p labPath) Listen() (net.Listener, error) { return p.n.Listen(port) }
func (p labPath) Dial(ctx context.Context) (net.Conn, error) {
	return p.n.Dial(ctx, port)
}
func (p labPath) Close() error                  { p.n.Close(); return nil }
func (p labPath) Stats() (up, down netem.Stats) { return p.n.Stats() }

type linuxPath struct{ p *netns.Pair }

// Linux is the reference: two namespaces, the kernel's TCP (CUBIC, as the
// lab's stacks run, and the namespaces' default buffers) at both ends.
func Linux(cfg netem.Config) (Path, error) {
	p, err := netns.NewPair(cfg)
	if err != nil {
		return nil, err
	}
	return linuxPath{p}, nil
}

func (p linuxPath) Listen() (ln net.Listener, err error) {
	err = p.p.Server.Do(func() error {
		lc := net.ListenConfig{Control: netns.Cubic}
		ln, err = lc.Listen(context.Background(), "tcp4", net.JoinHostPort(netem.ServerAddr.String(), strconv.Itoa(port)))
		return err
	})
	return ln, err
}

func (p linuxPath) Dial(ctx context.Context) (c net.Conn, err error) {
	err = p.p.Client.Do(func() error {
		d := net.Dialer{Control: netns.Cubic}
		c, err = d.DialContext(ctx, "tcp4", net.JoinHostPort(netem.ServerAddr.String(), strconv.Itoa(port)))
		return err
	})
	return c, err
}
func (p linuxPath) Close() error                  { return p.p.Close() }
func (p linuxPath) Stats() (up, down netem.Stats) { return p.p.Pipe.Stats() }

// LinuxTimed is the reference on a wire that delivers each packet at its
// own time on the lab's precise timer, rather than on Go's timers (which
// hand packets over in bursts once a millisecond): where Linux's figure
// moves with that beyond the tolerance, the wire's timing decides the row,
// not TCP (CheckTimer). It is no reference of its own: there Linux's
// receive autotuning stalls (Result.RwndLimited).
func LinuxTimed(cfg netem.Config) (Path, error) {
	cfg.Precise = true
	return Linux(cfg)
}

// LabExact and LinuxExact are the lab and the reference on an exact wire
// (netem.Config.Exact, the reference's on the lab's timer): a sleeping
// CPU's wake-up, which moves a transfer behind 8 packets by twice, taken
// out of both (bench/grid.sh -exact). Linux's receive autotuning stalls
// there as on LinuxTimed, so the rows without a bottleneck are not its.
func LabExact(cfg netem.Config) (Path, error) {
	cfg.Exact = true
	return Lab(cfg)
}

// LinuxExact: see LabExact.
func LinuxExact(cfg netem.Config) (Path, error) {
	cfg.Precise, cfg.Exact = true, true
	return Linux(cfg)
}

// LinuxOnRead is the reference with netem.Config.AdmitOnRead.
func LinuxOnRead(cfg netem.Config) (Path, error) {
	cfg.AdmitOnRead = true
	return Linux(cfg)
}

// PathStart is one path's constructor, named as the grid prints it.
type PathStart struct {
	Name  string
	Start func(netem.Config) (Path, error)
}

// Paths are the two paths the grid compares, in the order it prints them.
// NetnsPath is the lab's netns path, shown beside them on request
// (bench/grid.sh -netns): objbench's own client there has the reference's
// setup (the kernel's TCP at both ends, CUBIC, the same wire), so its
// column is the reference measured a second time, and its difference from
// the reference is the kernel path's own spread run to run.
var (
	Paths     = []PathStart{{"lab", Lab}, {"linux", Linux}}
	NetnsPath = PathStart{"netns", Linux}
	TimedPath = PathStart{"linux-timed", LinuxTimed}
	// ReadPath is the reference on a wire that admits each packet when
	// its reader gets it from the TUN device, as it did before 2026-11-27
	// (bench/grid.sh -readtime): its difference from Linux is what
	// admitting at the kernel's send time changed.
	ReadPath = PathStart{"read", LinuxOnRead}
	// ExactPaths are Paths on an exact wire (LabExact).
	ExactPaths = []PathStart{{"lab", LabExact}, {"linux", LinuxExact}}
)

// NeedsExact says the grid judges c on an exact wire (ExactPaths): the
// wire's own precision moves TCP there (netem.Config.TardyMatters: a queue
// of 16 packets or fewer at 30 Mbit/s and up). A CPU that sleeps between
// packets hands a quarter of the lab's packets over 0.1 ms late or more,
// and the reference's Go timers nearly all of Linux's, and that alone
// moved either path's median by up to three times (docs/lab.md, "The
// wire's own precision behind 8 packets"): a wire that does not keep its
// time is no yardstick there.
func (c Case) NeedsExact() bool { return c.Config().TardyMatters() }

// Result is one transfer's times from the request's start (from dial
// start on a cold connection).
type Result struct {
	Connect   time.Duration // the handshake (cold only)
	Send      time.Duration // until the request's last byte was written
	FirstByte time.Duration // until the response's first byte
	Total     time.Duration // until the response's last byte
	// RwndLimited is how long the sender was held by the receiver's
	// window (the kernel's TCP_INFO; 0 on the lab's stacks).
	RwndLimited time.Duration
	// Counts say what the two ends' TCP did in it.
	Counts Counts
}

// Counts are one transfer's TCP as both ends counted it: the client's
// reads that returned data, and each end's segment counters (the
// receiver's SegmentsOut are its ACKs). Where two paths' times differ they
// say whether the receiver's ACK pace or the sender's losses did
// (bench/grid -counts).
type Counts struct {
	Reads            int
	Sender, Receiver netem.Counts
	// Wire is what the wire did in the sender's direction: the packets it
	// dropped (against the sender's retransmissions: the rest were
	// spurious) and the bursts the sender sent them in.
	Wire netem.Stats
	// Back is what it did in the receiver's direction, to its ACKs: those
	// it handed over tardy (netem.Stats.Tardy) reach the sender together.
	Back netem.Stats
}

// ways reads p's wire counters in the direction of c's data and back.
func ways(c Case, p Path) (data, back netem.Stats) {
	up, down := p.Stats()
	if c.Op == http.MethodPut {
		return up, down
	}
	return down, up
}

// connCounts are c's counters: the lab's stacks' or the kernel's.
func connCounts(c net.Conn) netem.Counts {
	if nc, ok := c.(*netem.Conn); ok {
		return nc.Counts()
	}
	n, _ := kernelCounts(c)
	return n
}

// ErrStalled says a transfer made no progress for longer than the stacks'
// retransmission timers allow.
var ErrStalled = errors.New("no progress")

// Measure runs n transfers of c on p, each with a server of its own on a
// fresh listener. stall bounds how long a transfer may go without moving
// a byte (ErrStalled).
func Measure(ctx context.Context, p Path, c Case, n int, stall time.Duration) ([]Result, error) {
	ln, err := p.Listen()
	if err != nil {
		return nil, err
	}
	acc := &accepted{Listener: ln}
	srv := &http.Server{Handler: http.HandlerFunc(serve), ReadHeaderTimeout: time.Minute}
	done := make(chan struct{})
	go func() { _ = srv.Serve(acc); close(done) }()
	defer func() { srv.Close(); <-done }()
	var out []Result
	for range n {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		start := time.Now()
		wire, back := ways(c, p)
		conn, err := p.Dial(ctx)
		if err != nil {
			return out, err
		}
		connected := time.Since(start)
		reads := new(int)
		br := newReader(conn, stall, reads)
		var before Counts // a warm connection's counts before the transfer
		if c.Warm {
			if _, err := transfer(conn, br, c, stall); err != nil {
				conn.Close()
				return out, fmt.Errorf("%s: warming: %w", c, err)
			}
			connected = 0
			before = Counts{Reads: *reads, Sender: connCounts(conn), Receiver: connCounts(acc.last())}
			wire, back = ways(c, p)
			if c.Op != http.MethodPut {
				before.Sender, before.Receiver = before.Receiver, before.Sender
			}
		}
		r, err := transfer(conn, br, c, stall)
		if err == nil {
			sender, receiver := conn, acc.last()
			if c.Op != http.MethodPut {
				sender, receiver = receiver, sender
			}
			r.RwndLimited = rwndLimited(sender)
			w, b := ways(c, p)
			r.Counts = Counts{Reads: *reads - before.Reads, Sender: connCounts(sender).Sub(before.Sender), Receiver: connCounts(receiver).Sub(before.Receiver),
				Wire: w.Sub(wire), Back: b.Sub(back)}
		}
		conn.Close()
		if err != nil {
			return out, fmt.Errorf("%s: %w", c, err)
		}
		r.Connect = connected
		r.Send += connected
		r.FirstByte += connected
		r.Total += connected
		out = append(out, r)
	}
	return out, nil
}

// accepted keeps the connection a listener accepted last: the server's
// side of the transfer under way (one connection at a time).
type accepted struct {
	net.Listener
	mu   sync.Mutex
	conn net.Conn
}

func (a *accepted) Accept() (net.Conn, error) {
	c, err := a.Listener.Accept()
	if err == nil {
		a.mu.Lock()
		a.conn = c
		a.mu.Unlock()
	}
	return c, err
}

func (a *accepted) last() net.Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conn
}

// serve answers GET /N with N bytes and PUT with 200 once it has read the body.
func serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut {
		_, _ = io.Copy(io.Discard, r.Body)
		return
	}
	n, err := strconv.Atoi(r.URL.Path[1:])
	if err != nil {
		http.Error(w, "GET /SIZE", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(n))
	buf := make([]byte, 64<<10)
	for n > 0 {
		k, err := w.Write(buf[:min(n, len(buf))])
		if err != nil {
			return
		}
		n -= k
	}
}

// newReader reads conn, failing after stall without a byte, and counts
// the reads that returned data in reads.
func newReader(conn net.Conn, stall time.Duration, reads *int) *bufio.Reader {
	return bufio.NewReaderSize(progress{conn, stall, reads}, 64<<10)
}

// progress extends conn's deadline by stall at each call.
type progress struct {
	conn  net.Conn
	stall time.Duration
	reads *int // nil: not counted
}

func (p progress) Read(b []byte) (int, error) {
	_ = p.conn.SetDeadline(time.Now().Add(p.stall))
	n, err := p.conn.Read(b)
	if n > 0 && p.reads != nil {
		*p.reads++
	}
	return n, err
}

func (p progress) Write(b []byte) (int, error) {
	_ = p.conn.SetDeadline(time.Now().Add(p.stall))
	return p.conn.Write(b)
}

// transfer runs one request on conn; times are from its start.
func transfer(conn net.Conn, br *bufio.Reader, c Case, stall time.Duration) (Result, error) {
	var r Result
	start := time.Now()
	pw := progress{conn: conn, stall: stall}
	var err error
	if c.Op == http.MethodPut {
		if _, err = fmt.Fprintf(pw, "PUT /k HTTP/1.1\r\nHost: lab\r\nContent-Length: %d\r\n\r\n", c.Size); err == nil {
			buf := make([]byte, 64<<10)
			for left := c.Size; left > 0 && err == nil; left -= len(buf) {
				_, err = pw.Write(buf[:min(left, len(buf))])
			}
		}
	} else {
		_, err = fmt.Fprintf(pw, "GET /%d HTTP/1.1\r\nHost: lab\r\n\r\n", c.Size)
	}
	if err != nil {
		return r, stalled(err)
	}
	r.Send = time.Since(start)
	if _, err := br.Peek(1); err != nil {
		return r, stalled(err)
	}
	r.FirstByte = time.Since(start)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return r, stalled(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return r, stalled(err)
	}
	if resp.StatusCode != http.StatusOK || c.Op == http.MethodGet && n != int64(c.Size) {
		return r, fmt.Errorf("HTTP %d, %d bytes", resp.StatusCode, n)
	}
	r.Total = time.Since(start)
	return r, nil
}

func stalled(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: %w", ErrStalled, err)
	}
	return err
}
