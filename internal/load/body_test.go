package load

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/objbench/objbench/internal/storage"
)

// TestBodyRegeneratesAnyRange: a range read at any offset is the same
// bytes as the whole body read from the start, and a rewind reads them again.
func TestBodyRegeneratesAnyRange(t *testing.T) {
	t.Parallel()
	b := BodyOf(3*bodyBlock + 123)
	whole, err := io.ReadAll(b.Reader())
	if err != nil || int64(len(whole)) != b.Size() {
		t.Fatalf("read %d bytes, %v", len(whole), err)
	}
	for _, tc := range []struct{ off, n int64 }{{0, 1}, {1, bodyBlock}, {bodyBlock - 1, 2}, {2*bodyBlock + 5, bodyBlock + 118}} {
		p := make([]byte, tc.n)
		if _, err := b.ReadAt(p, tc.off); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if !bytes.Equal(p, whole[tc.off:tc.off+tc.n]) {
			t.Errorf("range %d+%d differs from the whole body's", tc.off, tc.n)
		}
	}
	r := b.Reader()
	_, _ = io.CopyN(io.Discard, r, 1000)
	_, _ = r.Seek(0, io.SeekStart)
	again, _ := io.ReadAll(r)
	if !bytes.Equal(again, whole) {
		t.Error("a rewound reader reads other bytes")
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(whole)
	_ = zw.Close()
	if z.Len() < len(whole) {
		t.Errorf("body compresses from %d to %d bytes: not incompressible", len(whole), z.Len())
	}
	if bytes.Equal(whole[:bodyBlock], whole[bodyBlock:2*bodyBlock]) || bytes.Equal(whole[:1000], mustRead(BodyOf(b.Size()+1), 1000)) {
		t.Error("blocks repeat, or bodies of other sizes are the same bytes")
	}
}

// TestVerifierClasses: the written bytes pass; a flipped byte is corrupt,
// a short body truncated.
func TestVerifierClasses(t *testing.T) {
	t.Parallel()
	b := BodyOf(200_000)
	good, _ := io.ReadAll(b.Reader())
	flipped := bytes.Clone(good)
	flipped[150_000] ^= 1
	for _, tc := range []struct {
		name string
		off  int64
		got  []byte
		want storage.ErrorClass
	}{
		{"whole", 0, good, storage.ClassNone},
		{"range", 70_000, good[70_000:90_000], storage.ClassNone},
		{"flipped", 0, flipped, storage.ClassCorrupt},
		{"short", 0, good[:199_999], storage.ClassTruncated},
	} {
		v := b.Verifier(tc.off)
		_, _ = io.Copy(v, bytes.NewReader(tc.got))
		want := int64(len(tc.got))
		if tc.want == storage.ClassTruncated {
			want = b.Size()
		}
		err := v.Check("get", "k", want)
		var se *storage.Error
		switch {
		case tc.want == storage.ClassNone && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != storage.ClassNone && (!errors.As(err, &se) || se.Class != tc.want):
			t.Errorf("%s: err %v, want class %s", tc.name, err, tc.want)
		}
	}
}

func mustRead(b Body, n int) []byte {
	p := make([]byte, n)
	_, _ = b.ReadAt(p, 0)
	return p
}

// TestVerifierFindsTheFirstFlip: whatever the range's start and the sizes
// the body arrives in (the word-wise check has a path for a write that
// starts or ends inside a word or crosses a block), a flipped byte is
// found at its own offset, and an untouched body passes.
func TestVerifierFindsTheFirstFlip(t *testing.T) {
	t.Parallel()
	b := BodyOf(3*bodyBlock + 77)
	whole := mustRead(b, int(b.Size()))
	for _, tc := range []struct {
		name        string
		start, end  int64 // the range [start, end)
		flip        int64 // offset in the body; -1 none
		chunk       int   // write size
		wantBadAt   int64
		wantCorrupt bool
	}{
		{"aligned none", 0, b.Size(), -1, 64 << 10, 0, false},
		{"odd start none", 13, b.Size(), -1, 1000, 0, false},
		{"odd start odd chunks", 5, b.Size(), bodyBlock + 3, 7, bodyBlock + 3, true},
		{"first byte", 0, 100, 0, 3, 0, true},
		{"last byte", 9, b.Size(), b.Size() - 1, 4096, b.Size() - 1, true},
		{"in a whole word", 0, b.Size(), 2*bodyBlock + 40, 64 << 10, 2*bodyBlock + 40, true},
		{"head word", 3, 200, 6, 197, 6, true},
		{"tail word", 0, 21, 19, 21, 19, true},
		{"across a block", bodyBlock - 11, bodyBlock + 11, bodyBlock + 2, 22, bodyBlock + 2, true},
		{"unrolled loop, word 3", 0, 4096, 8*3 + 5, 4096, 8*3 + 5, true},
	} {
		got := bytes.Clone(whole[tc.start:tc.end])
		if tc.flip >= 0 {
			got[tc.flip-tc.start] ^= 0x40
		}
		v := b.Verifier(tc.start)
		for off := 0; off < len(got); off += tc.chunk {
			_, _ = v.Write(got[off:min(off+tc.chunk, len(got))])
		}
		err := v.Check("get", "k", tc.end-tc.start)
		if (err != nil) != tc.wantCorrupt {
			t.Errorf("%s: err %v, want corrupt %v", tc.name, err, tc.wantCorrupt)
			continue
		}
		if tc.wantCorrupt && v.bad != tc.wantBadAt {
			t.Errorf("%s: first bad byte at %d, want %d", tc.name, v.bad, tc.wantBadAt)
		}
	}
}

// TestVerifierPastTheEnd: bytes beyond the body's end are never its own.
func TestVerifierPastTheEnd(t *testing.T) {
	t.Parallel()
	b := BodyOf(1000)
	got := append(mustRead(b, 1000)[990:], 0, 0)
	v := b.Verifier(990)
	_, _ = v.Write(got)
	if !v.badSeen || v.bad != 1000 {
		t.Fatalf("bad %v at %d, want the byte at 1000", v.badSeen, v.bad)
	}
}

// TestBodyBytesAreStable: the bytes of a body of a given size never change
// from one objbench version to the next, so that an object an earlier run
// wrote is still read as correct (the generator's constants and order, the
// tail of a block that ends inside a word).
func TestBodyBytesAreStable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		size int64
		want string // the first 8 bytes of the body's SHA-256, hex
	}{
		{1, "4a64a107f0cb3253"},
		{7, "c0af56cffdd3b16c"},
		{8, "6e6e7f3106d18954"},
		{65537, "8e5b994ff58d40b9"},
		{1000003, "80b580309a357df3"},
	} {
		// Read at once, and in the small, unaligned reads io.ReadAll makes.
		once := mustRead(BodyOf(tc.size), int(tc.size))
		small, _ := io.ReadAll(BodyOf(tc.size).Reader())
		for _, whole := range [][]byte{once, small} {
			sum := sha256.Sum256(whole)
			if got := hex.EncodeToString(sum[:8]); got != tc.want {
				t.Errorf("body of %d bytes: sha256 %s..., want %s...", tc.size, got, tc.want)
			}
		}
	}
}

// TestVerifierWithBlockSums: a clean read teaches the cache the CRC-32C of
// the whole blocks it held (not of the pieces at its edges); a later read
// of the same bytes with a flipped byte, checked by those sums, is still
// corrupt at that byte's own offset, and a clean one still passes.
func TestVerifierWithBlockSums(t *testing.T) {
	t.Parallel()
	b := BodyOf(5*bodyBlock + 77)
	whole := mustRead(b, int(b.Size()))
	for _, tc := range []struct {
		name       string
		start, end int64
		flip       int64 // -1 none
		chunk      int
		learnt     int // whole blocks the clean read teaches
	}{
		// 6 blocks: 5 of 64 KiB, then 77 bytes.
		{"aligned, large writes", 0, b.Size(), 3*bodyBlock + 9, 256 << 10, 6},
		{"aligned, small writes", 0, b.Size(), bodyBlock, 4096, 1},      // only the 77 bytes come in one write
		{"odd start", 100, b.Size(), 4*bodyBlock + 1, 3 * bodyBlock, 4}, // not block 0, nor block 3 (cut between writes)
		{"the short last block", 4 * bodyBlock, b.Size(), b.Size() - 2, 2 * bodyBlock, 2},
		{"clean again", 0, b.Size(), -1, 1 << 20, 6},
	} {
		c := &sumsCache{budget: 1 << 20}
		sums := c.get(b.Size())
		read := func(got []byte) *Verifier {
			v := &Verifier{body: b, start: tc.start, off: tc.start, sums: sums}
			for off := 0; off < len(got); off += tc.chunk {
				_, _ = v.Write(got[off:min(off+tc.chunk, len(got))])
			}
			return v
		}
		if err := read(whole[tc.start:tc.end]).Check("get", "k", tc.end-tc.start); err != nil {
			t.Fatalf("%s: clean read: %v", tc.name, err)
		}
		learnt := 0
		for i := range sums {
			if sums[i].Load() != 0 {
				learnt++
			}
		}
		if learnt != tc.learnt {
			t.Errorf("%s: %d blocks learnt, want %d", tc.name, learnt, tc.learnt)
		}
		got := bytes.Clone(whole[tc.start:tc.end])
		if tc.flip >= 0 {
			got[tc.flip-tc.start] ^= 0x01
		}
		v := read(got)
		err := v.Check("get", "k", tc.end-tc.start)
		switch {
		case tc.flip < 0 && err != nil:
			t.Errorf("%s: second read: %v", tc.name, err)
		case tc.flip >= 0 && (err == nil || v.bad != tc.flip):
			t.Errorf("%s: second read: %v, first bad byte at %d, want %d", tc.name, err, v.bad, tc.flip)
		}
	}
}

// TestSumsCacheBounds: no table for bodies under the cache's minimum, one
// table per size, and none once the tables would pass the budget.
func TestSumsCacheBounds(t *testing.T) {
	t.Parallel()
	c := &sumsCache{minBody: 2 * bodyBlock, budget: 8 * 5}
	if c.get(bodyBlock) != nil {
		t.Error("a table for a body under the minimum")
	}
	first := c.get(3 * bodyBlock)
	if len(first) != 3 {
		t.Fatalf("table of %d blocks for a 3-block body", len(first))
	}
	if again := c.get(3 * bodyBlock); &again[0] != &first[0] {
		t.Error("a second table for the same size")
	}
	if c.get(3*bodyBlock+1) != nil {
		t.Error("a table past the budget (3 + 4 blocks of 5)")
	}
	if len(c.get(2*bodyBlock)) != 2 {
		t.Error("no table for a body within the budget's rest")
	}
}
