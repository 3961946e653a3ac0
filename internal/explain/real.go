package explain

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/lab/netns"
	"github.com/objbench/objbench/internal/realpath"
	"github.com/objbench/objbench/internal/timeline"
	"github.com/objbench/objbench/internal/wire"
)

// Sources of a timeline (document.Explain.Source).
const (
	SourceLab   = "lab"
	SourceWire  = "wire"
	SourcePcap  = "pcap"
	SourceProxy = "proxy"
)

// RealConfig is one explain --real run: the program on its real path, no lab.
type RealConfig struct {
	Argv    []string
	Timeout time.Duration
	Stdin   io.Reader
	// Output and CloseOutput are the program's output (see Config).
	Output      io.Writer
	CloseOutput func() error
	Prices      analysis.Prices
	RunID       string
	Labels      map[string]string
	// Wire is the impairment added on top of the real path (--rtt,
	// --bandwidth, --loss); zero adds none.
	Wire netem.Config
	// Pcap, when set, is where the capture is written as pcapng with the
	// program's TLS keys in a Decryption Secrets Block (mode 0600).
	Pcap string
	// Notice receives the lines a user should read about the path (the
	// fallback's, the translator's); nil drops them.
	Notice io.Writer
	// Env is added to the program's environment (after objbench's own).
	Env []string
	// OnTimeline, when set, is told the timeline explained, moved to the
	// server's side (ServerView): tests hold it against the lab's record.
	OnTimeline func([]timeline.Conn)
}

// pathNotes say what each path cannot show.
var pathNotes = map[string]string{
	realpath.ModeKernel: "the program's own TCP and TLS end to end, captured at the edge of its network namespace",
	realpath.ModeTranslator: "a user-space TCP/IP stack at the edge of the program's namespace ended each TCP connection there and opened objbench's own beyond: " +
		"the program's TCP (connect, Nagle, windows) is measured up to the edge; the server's TCP behaviour and the path beyond are objbench's connection's, not the program's",
	realpath.ModeProxy: "an HTTPS_PROXY CONNECT tunnel without decryption: connections, TLS records and bytes only; the program's own TCP is not seen, " +
		"nor the traffic of programs that ignore HTTPS_PROXY (aws-sdk-js v3 does)",
	SourcePcap: "a capture read from a file: the timeline is as exact as where it was taken",
}

// RunReal runs the program on its real path (realpath) and explains its
// traffic as the wire showed it. Where namespaces cannot be made it falls
// back to a CONNECT tunnel (RunProxy) and says so on Notice.
func RunReal(ctx context.Context, cfg RealConfig) (*document.ExplainDocument, error) {
	d, err := runReal(ctx, cfg)
	if cfg.CloseOutput != nil {
		if cerr := cfg.CloseOutput(); err == nil && cerr != nil {
			err = fmt.Errorf("program output: %w", cerr)
		}
	}
	return d, err
}

// keyLog is the program's TLS key log: a file only its owner reads, in a
// directory of its own, read as the program appends to it.
type keyLog struct {
	dir, path string
	f         *os.File
	keys      []byte
	partial   []byte
}

func newKeyLog() (*keyLog, error) {
	dir, err := os.MkdirTemp("", "objbench-keys-")
	if err != nil {
		return nil, err
	}
	k := &keyLog{dir: dir, path: filepath.Join(dir, "keylog")}
	f, err := os.OpenFile(k.path, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	k.f = f
	return k, nil
}

// env points the program's TLS libraries at the key log: SSLKEYLOGFILE
// (OpenSSL, BoringSSL, NSS, rustls with its env feature, curl, Python),
// and Node's --tls-keylog, kept beside the user's own NODE_OPTIONS.
func (k *keyLog) env() []string {
	node := "--tls-keylog=" + k.path
	if v := os.Getenv("NODE_OPTIONS"); v != "" {
		node = v + " " + node
	}
	return []string{"SSLKEYLOGFILE=" + k.path, "NODE_OPTIONS=" + node}
}

// poll reads what the program appended since, whole lines only.
func (k *keyLog) poll() []byte {
	buf := make([]byte, 64<<10)
	var fresh []byte
	for {
		n, err := k.f.Read(buf)
		k.partial = append(k.partial, buf[:n]...)
		if n == 0 || err != nil {
			break
		}
	}
	if i := bytes.LastIndexByte(k.partial, '\n'); i >= 0 {
		fresh = append(fresh, k.partial[:i+1]...)
		k.partial = append([]byte(nil), k.partial[i+1:]...)
	}
	k.keys = append(k.keys, fresh...)
	return fresh
}

// Close removes the key log from the disk.
func (k *keyLog) Close() {
	k.f.Close()
	os.RemoveAll(k.dir)
}

// capture is the decoder and the optional pcapng spool behind the path's
// capture point.
type capture struct {
	mu       sync.Mutex
	dec      *wire.Decoder
	rtt      *realpath.RTTMeter
	spool    *os.File
	spoolBuf *bufio.Writer
	// derived are key log lines the decoder derived (resumed sessions).
	derived []byte
	pw      *wire.PcapngWriter
	err     error
}

func (c *capture) packet(t time.Time, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dec.Packet(wire.Packet{Time: t, Data: data})
	c.rtt.Packet(t, data)
	if c.pw != nil && c.err == nil {
		c.err = c.pw.WritePacket(wire.Packet{Time: t, Data: data})
	}
}

func (c *capture) keys(b []byte) {
	if len(b) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.dec.AddKeyLog(bytes.NewReader(b))
}

func runReal(ctx context.Context, cfg RealConfig) (*document.ExplainDocument, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("no command to run")
	}
	if _, err := exec.LookPath(cfg.Argv[0]); err != nil {
		return nil, fmt.Errorf("%q: %w", cfg.Argv[0], lab.ErrCommandNotFound)
	}
	if why, err := realPathAvailable(); err != nil {
		return nil, err
	} else if why != "" {
		if cfg.Pcap != "" {
			return nil, fmt.Errorf("--pcap: no capture without a network namespace (%s)", why)
		}
		if cfg.Notice != nil {
			fmt.Fprintf(cfg.Notice, "objbench: explain: %s: %s\n", why, pathNotes[realpath.ModeProxy])
		}
		return runTunnel(ctx, cfg)
	}
	kl, err := newKeyLog()
	if err != nil {
		return nil, fmt.Errorf("key log: %w", err)
	}
	defer kl.Close()
	cp := &capture{rtt: realpath.NewRTTMeter()}
	// A resumed TLS 1.2 session's key, which the program's log lacks,
	// goes into the capture's key block too (called with cp.mu held).
	cp.dec = wire.NewDecoder(wire.Options{Client: func(a netip.Addr) bool { return a == realpath.ProgramAddr },
		DerivedKey: func(line []byte) {
			cp.derived = append(cp.derived, bytes.TrimRight(line, "\n")...)
			cp.derived = append(cp.derived, '\n')
		}})
	if cfg.Pcap != "" {
		if cp.spool, err = os.CreateTemp(filepath.Dir(cfg.Pcap), ".objbench-capture-*"); err != nil {
			return nil, fmt.Errorf("--pcap: %w", err)
		}
		defer func() { cp.spool.Close(); os.Remove(cp.spool.Name()) }()
		cp.spoolBuf = bufio.NewWriterSize(cp.spool, 1<<20)
		if cp.pw, err = wire.NewPcapngWriter(cp.spoolBuf); err != nil {
			return nil, fmt.Errorf("--pcap: %w", err)
		}
	}
	p, err := realpath.Start(realpath.Config{Wire: cfg.Wire, Capture: cp.packet})
	if err != nil {
		return nil, err
	}
	pathClosed := false
	defer func() {
		if !pathClosed {
			p.Close()
		}
	}()
	started := time.Now()
	runCtx, cancel := bounded(ctx, cfg.Timeout)
	defer cancel()
	stopPoll := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				cp.keys(kl.poll())
			case <-stopPoll:
				return
			}
		}
	}()
	env := append(append(append(os.Environ(), p.Env()...), kl.env()...), cfg.Env...)
	code, err := runIn(runCtx, p.Run, cfg.Argv, env, cfg.Stdin, cfg.Output)
	end := time.Now()
	if err != nil {
		close(stopPoll)
		<-polled
		return nil, err
	}
	// The connections' last packets (FIN, their ACKs) cross the wire's
	// round trip after the program exits.
	time.Sleep(cfg.Wire.Up.Delay + cfg.Wire.Down.Delay + 100*time.Millisecond)
	close(stopPoll)
	<-polled
	cp.keys(kl.poll())
	st := p.Stats()
	perr := p.Close()
	pathClosed = true
	cp.mu.Lock()
	res := cp.dec.Result()
	rtt := cp.rtt.Min()
	cp.mu.Unlock()
	if perr != nil {
		return nil, fmt.Errorf("real path: %w", perr)
	}
	if cfg.Pcap != "" {
		keys := kl.keys
		if len(cp.derived) > 0 {
			keys = append(append([]byte(nil), keys...), cp.derived...)
		}
		if err := finishPcap(cp, cfg.Pcap, keys); err != nil {
			return nil, err
		}
	}
	timedOut := cfg.Timeout > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	d := FromWire(res, WireMeta{Source: SourceWire, Path: p.Mode(), Argv: cfg.Argv, ExitCode: code, Start: started, End: end, RTT: rtt, OnTimeline: cfg.OnTimeline}, cfg.Prices)
	if n := p.Note(); n != "" {
		d.Explain.PathNote += "; " + n
	}
	if p.Mode() == realpath.ModeTranslator && cfg.Notice != nil {
		fmt.Fprintf(cfg.Notice, "objbench: explain: %s\n", pathNotes[realpath.ModeTranslator])
	}
	if cfg.Notice != nil {
		pathNotice(cfg.Notice, st)
	}
	return finishReal(ctx, d, cfg.Argv, cfg.Timeout, cfg.RunID, cfg.Labels, code, timedOut)
}

// pathNotice says what the path could not carry: connections refused
// beyond the translator (with the last one's reason, as the program saw only
// a reset) and packets to destinations it could not reach.
func pathNotice(w io.Writer, st realpath.Stats) {
	if st.Refused > 0 {
		fmt.Fprintf(w, "objbench: explain: %d of the program's %d connections were refused beyond the edge (the program saw a reset); the last: %s\n",
			st.Refused, st.Refused+st.Translated, st.LastRefusal)
	}
	if st.Unreachable > 0 {
		fmt.Fprintf(w, "objbench: explain: %d packets went to destinations the path does not carry (answered unreachable: UDP other than DNS, such as QUIC, and ICMP are not carried)\n", st.Unreachable)
	}
}

// Stand-ins for a test of the choice of path.
var (
	realEUID        = os.Geteuid
	realRootless    = netns.Rootless
	realCanRelaunch = netns.CanRelaunch
	realAvailable   = netns.Available
)

// realPathAvailable says whether the real path can be had here: "" when
// it can, lab.ErrRelaunch when objbench must start again in a user
// namespace of its own, else why not (the fallback's reason).
func realPathAvailable() (string, error) {
	if realEUID() != 0 && !realRootless() {
		err := realCanRelaunch()
		if err == nil {
			return "", lab.ErrRelaunch
		}
		return fmt.Sprintf("network namespaces unavailable (%v)", err), nil
	}
	if err := realAvailable(); err != nil {
		return fmt.Sprintf("network namespaces unavailable (%v)", err), nil
	}
	return "", nil
}

// runTunnel is the fallback: the program outside any namespace, its
// connections through a CONNECT tunnel (HTTPS_PROXY) read without keys.
func runTunnel(ctx context.Context, cfg RealConfig) (*document.ExplainDocument, error) {
	t, err := startTunnel()
	if err != nil {
		return nil, fmt.Errorf("tunnel: %w", err)
	}
	defer t.Close()
	started := time.Now()
	runCtx, cancel := bounded(ctx, cfg.Timeout)
	defer cancel()
	env := append(append(append(os.Environ(), t.env()...), realpath.HostEnv+"=127.0.0.1"), cfg.Env...)
	code, err := runIn(runCtx, (*exec.Cmd).Start, cfg.Argv, env, cfg.Stdin, cfg.Output)
	end := time.Now()
	if err != nil {
		return nil, err
	}
	time.Sleep(100 * time.Millisecond) // the tunnels' ends
	conns := t.result()
	res := wire.Result{Conns: make([]*timeline.Conn, len(conns))}
	for i := range conns {
		res.Conns[i] = &conns[i]
	}
	timedOut := cfg.Timeout > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	d := FromWire(res, WireMeta{Source: SourceProxy, Path: realpath.ModeProxy, Argv: cfg.Argv, ExitCode: code, Start: started, End: end, OnTimeline: cfg.OnTimeline}, cfg.Prices)
	return finishReal(ctx, d, cfg.Argv, cfg.Timeout, cfg.RunID, cfg.Labels, code, timedOut)
}

// finishReal is runProgram's ending for the real path: the interrupted,
// no-request and timed-out cases, the run id and options.
func finishReal(ctx context.Context, d *document.ExplainDocument, argv []string, timeout time.Duration, runID string, labels map[string]string, code int, timedOut bool) (*document.ExplainDocument, error) {
	name := filepath.Base(argv[0])
	if ctx.Err() != nil {
		if d.Explain.Requests == 0 && d.Explain.Connections == 0 {
			return nil, ctx.Err()
		}
		d.Interrupted = true
		return d, ctx.Err()
	}
	if d.Explain.Requests == 0 && d.Explain.Connections == 0 {
		msg := fmt.Sprintf("%s made no connection on its real path", name)
		switch {
		case timedOut:
			msg += fmt.Sprintf(" (stopped after --timeout %s)", timeout)
		case code != 0:
			msg += fmt.Sprintf(" (it exited with status %d)", code)
		}
		return nil, &NoRequestsError{Msg: msg, ExitCode: code, TimedOut: timedOut}
	}
	if runID != "" {
		d.RunID = runID
	}
	d.Labels, d.Options = labels, Options(argv, timeout)
	if timedOut {
		d.Interrupted = true
		return d, fmt.Errorf("%s %w after %s and was stopped", name, ErrTimeout, timeout)
	}
	return d, nil
}

// finishPcap writes the capture: the section header, the key log in a
// Decryption Secrets Block ahead of every packet, then the packets spooled
// during the run. The file is its owner's alone (0600).
func finishPcap(cp *capture, path string, keys []byte) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.err != nil {
		return fmt.Errorf("--pcap: %w", cp.err)
	}
	if err := cp.pw.Close(); err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	if err := cp.spoolBuf.Flush(); err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	if _, err := cp.spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	pw, err := wire.NewPcapngWriter(bw)
	if err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	if len(keys) > 0 {
		if err := pw.WriteKeyLog(keys); err != nil {
			return fmt.Errorf("--pcap: %w", err)
		}
	}
	if _, err := wire.ReadPcap(bufio.NewReader(cp.spool), pw.WritePacket); err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("--pcap: %w", err)
	}
	return f.Close()
}

// runIn runs argv with env, started by start (in the program's
// namespace), its output to out; as lab.ExecEnv: cancelling ctx stops it
// with its process group (SIGTERM, SIGKILL after 5 s).
func runIn(ctx context.Context, start func(*exec.Cmd) error, argv, env []string, stdin io.Reader, out io.Writer) (int, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, fmt.Errorf("%q: %w", argv[0], lab.ErrCommandNotFound)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, out
	return lab.RunGroup(ctx, cmd, start, argv)
}

// WireMeta is what a wire timeline's explanation needs beside it.
type WireMeta struct {
	// Source is SourceWire, SourcePcap or SourceProxy; Path the mode that
	// carried it (realpath.ModeKernel...; "" for a capture).
	Source, Path string
	Argv         []string
	ExitCode     int
	// Start and End bound the program's run (zero: the capture's first
	// and last packets).
	Start, End time.Time
	// MTU of the path (0: 1500).
	MTU int
	// RTT is the path's round trip as measured from its packets
	// (realpath.RTTMeter); 0 takes the median of the TCP handshakes.
	RTT time.Duration
	// OnTimeline is RealConfig's.
	OnTimeline func([]timeline.Conn)
}

// FromWire explains a timeline read off the wire: the same analysis as
// the lab's record (findings, what-if, cost), its stamps moved to the
// server's side of the path first.
func FromWire(res wire.Result, m WireMeta, prices analysis.Prices) *document.ExplainDocument {
	conns := make([]timeline.Conn, 0, len(res.Conns))
	for _, c := range res.Conns {
		conns = append(conns, *c)
	}
	rtt := m.RTT
	if rtt <= 0 {
		rtt = pathRTT(conns)
	}
	start, end := m.Start, m.End
	if start.IsZero() || end.IsZero() {
		first, last := span(conns)
		if start.IsZero() {
			start = first
		}
		if end.IsZero() {
			end = last
		}
	}
	server := ServerView(conns, rtt/2)
	for i := range server {
		if server[i].API == "" || server[i].API == "wire" { // the decoder does not name it
			server[i].API = guessAPI(&server[i])
		}
	}
	if m.OnTimeline != nil {
		m.OnTimeline(server)
	}
	// HTTP/2 was offered when a connection negotiated it, or where the
	// endpoint is Google's (its storage endpoints speak it; S3's and
	// Azure's do not).
	h2 := slices.ContainsFunc(server, func(c timeline.Conn) bool { return c.ALPN == "h2" || c.API == "gcs" })
	mtu := m.MTU
	if mtu == 0 {
		mtu = 1500
	}
	// A cold connection's first response is modelled as the lab models it
	// (slow start from 10 segments into a default Linux receive buffer).
	in := Input{Program: Redact(m.Argv), ExitCode: m.ExitCode, Conns: server, Start: start, End: end, RTT: rtt, HTTP2Offered: h2,
		MSS: lab.MSS(mtu), RecvBuffer: netem.LinuxBuffers.RecvMax}
	e := Analyze(in)
	e.Source, e.Path = m.Source, m.Path
	e.PathNote = pathNotes[m.Path]
	if m.Source == SourcePcap {
		e.PathNote = pathNotes[SourcePcap]
	}
	byID := map[int]*timeline.Conn{}
	for i := range server {
		byID[server[i].ID] = &server[i]
	}
	for i := range e.Conns {
		ec := &e.Conns[i]
		c := byID[ec.ID]
		if c == nil {
			continue
		}
		ec.Read, ec.SNI, ec.Cipher, ec.Resumed = c.Read, c.SNI, c.Cipher, c.Resumed
		if c.DNS != nil && !c.DNS.Answer.IsZero() {
			ec.DNSms = ms(c.DNS.Answer.Sub(c.DNS.Query))
		}
		for j := range ec.Requests {
			if j < len(c.Requests) {
				ec.Requests[j].Inferred, ec.Requests[j].RequestID = c.Requests[j].Inferred, c.Requests[j].RequestID
			}
		}
	}
	env := document.NewEnvelope("explain", document.NewRunID(), start)
	env.Target = document.TargetInfo{URL: targetOf(server), Provider: mainAPI(e)}
	env.DurationS = end.Sub(start).Seconds()
	d := &document.ExplainDocument{Envelope: env, Explain: e}
	d.Explain.Findings = Findings(&d.Explain, in)
	if f, ok := NagleStall(in); ok {
		d.Explain.Findings = append(d.Explain.Findings, f)
	}
	d.Explain.Findings = append(d.Explain.Findings, wireFindings(&d.Explain, server)...)
	d.Explain.WhatIf = WhatIf(&d.Explain)
	Price(d, prices)
	return d
}

// pathRTT is the round trip the program's connections saw: the median of
// their TCP handshakes (SYN to the client's ACK of the SYN-ACK), which
// includes any added impairment; 0 when none was seen whole.
func pathRTT(conns []timeline.Conn) time.Duration {
	var hs []time.Duration
	for _, c := range conns {
		if !c.Connect.IsZero() && !c.Accepted.IsZero() && c.Accepted.After(c.Connect) {
			hs = append(hs, c.Accepted.Sub(c.Connect))
		}
	}
	if len(hs) == 0 {
		return 0
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// span is the first and last stamp of a timeline.
func span(conns []timeline.Conn) (first, last time.Time) {
	note := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	for _, c := range conns {
		note(c.Connect)
		note(c.Accepted)
		note(c.Closed)
		if c.DNS != nil {
			note(c.DNS.Query)
		}
		for _, q := range c.Requests {
			note(q.Sent)
			note(q.Arrived)
			note(q.Done)
		}
	}
	return first, last
}

// ServerView moves a timeline stamped at the client's side of the path
// to the server's, owd (one way) away, as the lab's recorder stamps it:
// what the client sent reached the server owd later, what it received
// left the server owd earlier. A close is the closer's.
func ServerView(conns []timeline.Conn, owd time.Duration) []timeline.Conn {
	out := make([]timeline.Conn, len(conns))
	later := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return t.Add(owd)
	}
	earlier := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return t.Add(-owd)
	}
	for i, c := range conns {
		c.Accepted, c.Hello, c.Handshake = later(c.Accepted), later(c.Hello), later(c.Handshake)
		if c.ClosedBy == "client" {
			c.Closed = later(c.Closed)
		} else {
			c.Closed = earlier(c.Closed)
		}
		reqs := make([]*timeline.Request, len(c.Requests))
		for j, q := range c.Requests {
			qq := *q
			qq.Sent, qq.Arrived, qq.BodySent, qq.BodyDone = later(q.Sent), later(q.Arrived), later(q.BodySent), later(q.BodyDone)
			qq.Continue, qq.FirstByte, qq.Done = earlier(q.Continue), earlier(q.FirstByte), earlier(q.Done)
			reqs[j] = &qq
		}
		c.Requests = reqs
		out[i] = c
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Accepted.Before(out[j].Accepted) })
	return out
}

// guessAPI names a wire connection's API from its requests' headers,
// paths and host (the lab knows it from the endpoint).
func guessAPI(c *timeline.Conn) string {
	host := strings.ToLower(c.SNI)
	for _, q := range c.Requests {
		if q.Host != "" {
			host = strings.ToLower(q.Host)
		}
		for k := range q.Header {
			switch {
			case strings.HasPrefix(k, "X-Amz-"):
				return "s3"
			case strings.HasPrefix(k, "X-Goog-"):
				return "gcs"
			case strings.HasPrefix(k, "X-Ms-"):
				return "azure"
			}
		}
		if strings.HasPrefix(q.Path, "/storage/v1/") || strings.HasPrefix(q.Path, "/upload/storage/v1/") || strings.HasPrefix(q.Path, "/download/storage/v1/") {
			return "gcs"
		}
		ua := strings.ToLower(q.Header.Get("User-Agent"))
		switch {
		case strings.Contains(ua, "azsdk"):
			return "azure"
		case strings.Contains(ua, "gcloud") || strings.Contains(ua, "gl-python") || strings.Contains(ua, "google-api"):
			return "gcs"
		}
	}
	switch {
	case strings.Contains(host, "googleapis.com"):
		return "gcs"
	case strings.Contains(host, "core.windows.net"):
		return "azure"
	}
	return "s3"
}

// targetOf names where the program went: the server name most
// connections asked for, else their address.
func targetOf(conns []timeline.Conn) string {
	n := map[string]int{}
	best := ""
	for _, c := range conns {
		h := c.SNI
		if h == "" && len(c.Requests) > 0 {
			h = c.Requests[0].Host
		}
		if h == "" {
			h = c.Server
		}
		n[h]++
		if best == "" || n[h] > n[best] {
			best = h
		}
	}
	if best == "" {
		return "real"
	}
	return best
}
