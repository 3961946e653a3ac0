package stats

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/internal/nettrace"
)

// packed is one kept sample in 112 bytes instead of Kept's 344, so that a
// run's 100,000 kept samples take 11 MB, not 34: times are integer
// nanoseconds (the start since the epoch, the rest as uint32 offsets and
// durations), counts are bytes, and the strings of few values (op, error
// class, protocol, TLS version, remote address) are indexes into one
// table of names. A sample with any value that does not fit (a phase of
// 4.3 s or more, an error message, a zero start) is kept whole beside: it
// is rare, and whatever it holds comes back exactly. What unpack returns
// is what the results database stores of the sample, to the nanosecond.
type packed struct {
	start int64 // Start, Unix nanoseconds
	key   string
	whole *Kept // the sample as given, when it does not pack; the rest is then unused
	// firstByte and end are nanoseconds after start; firstByte is
	// noFirstByte when there was none.
	firstByte, end    uint32
	phases            [nettrace.NumPhases]uint32
	size, bytes, idle uint32
	step, worker, seq uint32
	status            uint16
	op, errClass      uint16
	proto, tls        uint16
	remote            uint16
	requests, retries uint8
	reconnects        uint8
	silentRetries     uint8
	flags             uint8
}

// noFirstByte marks a sample without a first byte.
const noFirstByte = math.MaxUint32

// The flags of a packed sample.
const (
	flagReused = 1 << iota
	flagWasIdle
	flagExpectSent
	flagExpectWaited
)

// pack returns s of step packed; ok is false when a value does not fit.
func pack(step int, s *nettrace.Sample) (p packed, ok bool) {
	if s.Err != "" || s.Start.IsZero() || s.End.IsZero() {
		return p, false
	}
	start := s.Start.UnixNano()
	ok = true
	u32 := func(v int64) uint32 {
		if v < 0 || v >= noFirstByte {
			ok = false
			return 0
		}
		return uint32(v)
	}
	u16 := func(v int) uint16 {
		if v < 0 || v > math.MaxUint16 {
			ok = false
			return 0
		}
		return uint16(v)
	}
	u8 := func(v int) uint8 {
		if v < 0 || v > math.MaxUint8 {
			ok = false
			return 0
		}
		return uint8(v)
	}
	p = packed{start: start, key: s.Key, end: u32(s.End.UnixNano() - start), firstByte: noFirstByte,
		size: u32(s.Size), bytes: u32(s.Bytes), idle: u32(int64(s.IdleTime)),
		step: u32(int64(step)), worker: u32(int64(s.Worker)), seq: u32(int64(s.Seq)),
		status: u16(s.Status), requests: u8(s.Requests), retries: u8(s.Retries), reconnects: u8(s.Reconnects),
		silentRetries: u8(s.SilentRetries)}
	if !s.FirstByte.IsZero() {
		p.firstByte = u32(s.FirstByte.UnixNano() - start)
	}
	for i, d := range s.Phases {
		p.phases[i] = u32(int64(d))
	}
	var named bool
	for _, n := range [...]struct {
		to *uint16
		s  string
	}{{&p.op, s.Op}, {&p.errClass, s.ErrClass}, {&p.proto, s.Proto}, {&p.tls, s.TLSVersion}, {&p.remote, s.RemoteAddr}} {
		if *n.to, named = names.id(n.s); !named {
			ok = false
		}
	}
	for _, f := range [...]struct {
		on   bool
		flag uint8
	}{{s.Reused, flagReused}, {s.WasIdle, flagWasIdle}, {s.ExpectSent, flagExpectSent}, {s.ExpectWaited, flagExpectWaited}} {
		if f.on {
			p.flags |= f.flag
		}
	}
	return p, ok
}

// packOf packs s of step, or keeps it whole when it does not pack.
func packOf(step int, s *nettrace.Sample) packed {
	if p, ok := pack(step, s); ok {
		return p
	}
	return packed{whole: &Kept{Step: step, Sample: *s}}
}

// unpack returns the sample p holds. Its times are the same instants in
// nanoseconds as those given, without a monotonic reading.
func (p *packed) unpack() Kept {
	if p.whole != nil {
		return *p.whole
	}
	at := func(off uint32) time.Time { return time.Unix(0, p.start+int64(off)) }
	k := Kept{Step: int(p.step), Sample: nettrace.Sample{
		Op: names.name(p.op), Key: p.key, Size: int64(p.size), Bytes: int64(p.bytes), Worker: int(p.worker), Seq: int(p.seq),
		Start: time.Unix(0, p.start), End: at(p.end), Status: int(p.status), ErrClass: names.name(p.errClass),
		Requests: int(p.requests), Retries: int(p.retries), Reconnects: int(p.reconnects), SilentRetries: int(p.silentRetries),
		ExpectSent: p.flags&flagExpectSent != 0, ExpectWaited: p.flags&flagExpectWaited != 0,
		Reused: p.flags&flagReused != 0, WasIdle: p.flags&flagWasIdle != 0, IdleTime: time.Duration(p.idle),
		Proto: names.name(p.proto), TLSVersion: names.name(p.tls), RemoteAddr: names.name(p.remote),
	}}
	if p.firstByte != noFirstByte {
		k.FirstByte = at(p.firstByte)
	}
	for i, d := range p.phases {
		k.Phases[i] = time.Duration(d)
	}
	return k
}

// setStep marks p as of step.
func (p *packed) setStep(step int) {
	if p.whole != nil {
		p.whole.Step = step
		return
	}
	if step < 0 || int64(step) > math.MaxUint32 {
		k := p.unpack()
		k.Step = step
		p.whole = &k
		return
	}
	p.step = uint32(step)
}

// nameTable interns the strings of few values that samples carry, for
// every reservoir of the process: id 0 is "". Lookups of a known name take
// no lock (sync.Map), so workers packing samples at once do not wait on
// each other.
type nameTable struct {
	ids   sync.Map // string -> uint16
	mu    sync.Mutex
	names atomic.Pointer[[]string] // grown under mu; ids index it
}

var names = newNameTable()

func newNameTable() *nameTable {
	t := &nameTable{}
	t.ids.Store("", uint16(0))
	ns := []string{""}
	t.names.Store(&ns)
	return t
}

// maxNames bounds the table: a sample with a name past it is kept whole.
const maxNames = 4096

// id returns s's id, adding it; false when the table is full.
func (t *nameTable) id(s string) (uint16, bool) {
	if id, ok := t.ids.Load(s); ok {
		return id.(uint16), true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids.Load(s); ok {
		return id.(uint16), true
	}
	ns := *t.names.Load()
	if len(ns) >= maxNames {
		return 0, false
	}
	id := uint16(len(ns))
	ns = append(ns, s)
	t.names.Store(&ns) // before ids: whoever finds the id finds its name
	t.ids.Store(s, id)
	return id, true
}

func (t *nameTable) name(id uint16) string { return (*t.names.Load())[id] }
