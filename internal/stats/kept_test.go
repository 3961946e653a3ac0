package stats

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/objbench/objbench/internal/nettrace"
)

// sameInstants is k with every time as time.Unix of its nanoseconds (what
// the results database stores and gives back), for comparing with a
// packed and unpacked sample.
func sameInstants(k Kept) Kept {
	for _, t := range []*time.Time{&k.Start, &k.FirstByte, &k.End} {
		if !t.IsZero() {
			*t = time.Unix(0, t.UnixNano())
		}
	}
	return k
}

// TestPackedExact: a kept sample comes back with every value it was given,
// times to the nanosecond, whether it packs or is kept whole.
func TestPackedExact(t *testing.T) {
	t.Parallel()
	start := time.Now() // with a monotonic reading, as nettrace's are
	full := nettrace.Sample{Op: "get", Key: "objbench/k-000017", Size: 1024, Bytes: 1024, Worker: 7, Seq: 123_456,
		Start: start, FirstByte: start.Add(812345 * time.Nanosecond), End: start.Add(912345 * time.Nanosecond),
		Status: 200, Requests: 1, Retries: 0, Reconnects: 1, SilentRetries: 2, ExpectSent: true, ExpectWaited: true,
		Reused: true, WasIdle: true, IdleTime: 3 * time.Millisecond, Proto: "HTTP/1.1", TLSVersion: "TLS 1.3", RemoteAddr: "127.0.0.1:9000"}
	for i := range full.Phases {
		full.Phases[i] = time.Duration(1000*i + 7)
	}
	edit := func(f func(s *nettrace.Sample)) nettrace.Sample { s := full; f(&s); return s }
	tests := []struct {
		name  string
		step  int
		s     nettrace.Sample
		whole bool // kept whole rather than packed
	}{
		{"typical", 3, full, false},
		{"no first byte", 0, edit(func(s *nettrace.Sample) { s.FirstByte = time.Time{}; s.Status = 0 }), false},
		{"just under 4.3 s", 1, edit(func(s *nettrace.Sample) { s.End = s.Start.Add(math.MaxUint32 - 1) }), false},
		{"total of 4.3 s", 1, edit(func(s *nettrace.Sample) { s.End = s.Start.Add(math.MaxUint32) }), true},
		{"long phase", 1, edit(func(s *nettrace.Sample) { s.Phases[nettrace.Recv] = 10 * time.Second }), true},
		{"negative phase", 1, edit(func(s *nettrace.Sample) { s.Phases[nettrace.Send] = -1 }), true},
		{"end before start", 1, edit(func(s *nettrace.Sample) { s.End = s.Start.Add(-time.Microsecond) }), true},
		{"5 GB object", 1, edit(func(s *nettrace.Sample) { s.Size, s.Bytes = 5e9, 5e9 }), true},
		{"long idle", 1, edit(func(s *nettrace.Sample) { s.IdleTime = time.Minute }), true},
		{"300 parts", 1, edit(func(s *nettrace.Sample) { s.Requests = 300 }), true},
		{"error", 2, edit(func(s *nettrace.Sample) { s.Err, s.ErrClass, s.Status = "GET k: 503 SlowDown", "throttled", 503 }), true},
		{"error class only", 2, edit(func(s *nettrace.Sample) { s.ErrClass = "timeout" }), false},
		{"zero start", 0, nettrace.Sample{Seq: 4}, true},
		{"step past uint32", math.MaxUint32 + 1, full, true},
	}
	for _, tt := range tests {
		p := packOf(tt.step, &tt.s)
		if (p.whole != nil) != tt.whole {
			t.Errorf("%s: kept whole %v, want %v", tt.name, p.whole != nil, tt.whole)
		}
		want := sameInstants(Kept{Step: tt.step, Sample: tt.s})
		if got := sameInstants(p.unpack()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: unpacked\n%+v\nwant\n%+v", tt.name, got, want)
		}
		p.setStep(9)
		if got := p.unpack(); got.Step != 9 {
			t.Errorf("%s: step %d after setStep(9)", tt.name, got.Step)
		}
	}
	if n := unsafe.Sizeof(packed{}); n > 112 {
		t.Errorf("a packed sample takes %d bytes, want at most 112", n)
	}
}

// TestNameTableFull: past maxNames distinct names a sample is kept whole,
// and still comes back exactly.
func TestNameTableFull(t *testing.T) {
	t.Parallel()
	tab := newNameTable()
	for i := range maxNames - 1 {
		if _, ok := tab.id(fmt.Sprint("10.0.0.1:", i)); !ok {
			t.Fatalf("table full after %d names", i)
		}
	}
	if id, ok := tab.id("10.0.0.1:0"); !ok || tab.name(id) != "10.0.0.1:0" {
		t.Errorf("a known name: id %d, %v", id, ok)
	}
	if _, ok := tab.id("one too many"); ok {
		t.Error("a name past maxNames was added")
	}
	if id, ok := tab.id(""); !ok || id != 0 {
		t.Errorf(`"" is id %d, %v`, id, ok)
	}
}

// BenchmarkReservoirAdd is the cost a worker pays per request to keep its
// sample: packing it, past the capacity only when it is drawn. 0 allocs.
func BenchmarkReservoirAdd(b *testing.B) {
	start := time.Now()
	s := nettrace.Sample{Op: "get", Key: "objbench/k", Size: 1024, Bytes: 1024, Start: start, FirstByte: start.Add(300 * time.Microsecond),
		End: start.Add(400 * time.Microsecond), Status: 200, Requests: 1, Reused: true, Proto: "HTTP/1.1", RemoteAddr: "127.0.0.1:9000"}
	r := NewReservoir(10_000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Seq = i
		r.Add(0, &s)
	}
}
