package load

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/objbench/objbench/internal/storage"
)

// bodyBlock is the generator's unit: any byte of a body is regenerated
// from its block's seed, so that a reader can start anywhere.
const bodyBlock = 64 << 10

// Body is an object's bytes as objbench writes them: incompressible,
// regenerated from a seed and a length rather than held, so that neither
// a 5 GiB upload nor a download's check costs memory beyond a block per
// reader. Bodies of one size are the same bytes, so that a read of an
// object any objbench run wrote can be checked.
type Body struct {
	seed uint64
	size int64
}

// BodyOf is the body objbench writes for an object of size bytes.
func BodyOf(size int64) Body { return Body{seed: uint64(size)*0x9E3779B97F4A7C15 + 1, size: size} }

// Size is the body's length.
func (b Body) Size() int64 { return b.size }

// The generator's constants (wyrand's): a block's state starts at the
// body's seed mixed with the block's index and steps by genStep a word.
const (
	genStep = 0xa0761d6478bd642f
	genMix  = 0xe7037ed1a0b428db
	// genStep2 to genStep4 are 2 to 4 steps at once, modulo 2^64.
	genStep2 = 2 * genStep & (1<<64 - 1)
	genStep3 = 3 * genStep & (1<<64 - 1)
	genStep4 = 4 * genStep & (1<<64 - 1)
)

// fill writes block i's bytes from byte in of it into dst (at most the
// rest of the block): wyrand's output from a seed of the body's and the
// block's, as random to a compressor as any, at 15-20 GB/s a core
// (ChaCha8 makes 0.6 here), so that generating and checking bodies stays
// far from a download's cost. Any byte is computed directly: a read that
// starts inside a block regenerates only what it returns.
func (b Body) fill(i int64, in int, dst []byte) {
	k, w := 0, in/8
	if r := in % 8; r != 0 { // the word dst starts inside
		var g [8]byte
		binary.LittleEndian.PutUint64(g[:], b.word(i, w))
		k, w = copy(dst, g[r:]), w+1
	}
	s := b.seed ^ uint64(i)*genMix + uint64(w)*genStep
	for ; k+8 <= len(dst); k += 8 {
		s += genStep
		hi, lo := bits.Mul64(s, s^genMix)
		binary.LittleEndian.PutUint64(dst[k:k+8], hi^lo)
	}
	if k < len(dst) { // the word dst ends inside
		s += genStep
		hi, lo := bits.Mul64(s, s^genMix)
		var g [8]byte
		binary.LittleEndian.PutUint64(g[:], hi^lo)
		copy(dst[k:], g[:])
	}
}

// word is the w-th 8-byte word of block i, little-endian: the state after
// w+1 steps, computed directly, so that a check can start at any byte.
func (b Body) word(i int64, w int) uint64 {
	s := b.seed ^ uint64(i)*genMix + uint64(w+1)*genStep
	hi, lo := bits.Mul64(s, s^genMix)
	return hi ^ lo
}

// mismatchBlock is the index of the first byte of p that is not block
// i's byte from byte in of it, or -1. It compares p with the generator's
// words in registers, never writing the body's bytes out: one read of p, a
// multiplication per 8 bytes, no copy, no buffer.
func (b Body) mismatchBlock(i int64, in int, p []byte) int {
	k, w := 0, in/8
	if r := in % 8; r != 0 { // the word p starts inside, byte by byte
		var g [8]byte
		binary.LittleEndian.PutUint64(g[:], b.word(i, w))
		n := min(8-r, len(p))
		for j := range n {
			if p[j] != g[r+j] {
				return j
			}
		}
		k, w = n, w+1
	}
	// Whole words: differences are or-ed together and looked for only when
	// there is one, so that the loop has no branch but its own.
	start, s := k, b.seed^uint64(i)*genMix+uint64(w)*genStep
	var acc uint64
	for ; k+32 <= len(p); k += 32 {
		q := p[k : k+32 : k+32]
		hi0, lo0 := bits.Mul64(s+genStep, (s+genStep)^genMix)
		hi1, lo1 := bits.Mul64(s+genStep2, (s+genStep2)^genMix)
		hi2, lo2 := bits.Mul64(s+genStep3, (s+genStep3)^genMix)
		hi3, lo3 := bits.Mul64(s+genStep4, (s+genStep4)^genMix)
		s += genStep4
		acc |= (binary.LittleEndian.Uint64(q[0:8]) ^ hi0 ^ lo0) | (binary.LittleEndian.Uint64(q[8:16]) ^ hi1 ^ lo1) |
			(binary.LittleEndian.Uint64(q[16:24]) ^ hi2 ^ lo2) | (binary.LittleEndian.Uint64(q[24:32]) ^ hi3 ^ lo3)
	}
	for ; k+8 <= len(p); k += 8 {
		s += genStep
		hi, lo := bits.Mul64(s, s^genMix)
		acc |= binary.LittleEndian.Uint64(p[k:k+8]) ^ hi ^ lo
	}
	if acc != 0 { // which byte (once per corrupted body)
		for j := start; j < k; j += 8 {
			if x := binary.LittleEndian.Uint64(p[j:j+8]) ^ b.word(i, w+(j-start)/8); x != 0 {
				return j + bits.TrailingZeros64(x)/8
			}
		}
	}
	if k < len(p) { // the word p ends inside
		var g [8]byte
		binary.LittleEndian.PutUint64(g[:], b.word(i, w+(k-start)/8))
		for j := k; j < len(p); j++ {
			if p[j] != g[j-k] {
				return j
			}
		}
	}
	return -1
}

// ReadAt fills p with the body's bytes from off; safe for concurrent use.
func (b Body) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("body: negative offset")
	}
	if off >= b.size {
		return 0, io.EOF
	}
	var err error
	if rest := b.size - off; int64(len(p)) > rest {
		p, err = p[:rest], io.EOF
	}
	n := 0
	for n < len(p) {
		i, in := (off+int64(n))/bodyBlock, int((off+int64(n))%bodyBlock)
		want := min(len(p)-n, bodyBlock-in)
		b.fill(i, in, p[n:n+want])
		n += want
	}
	return n, err
}

// Reader is a fresh reader of the whole body: an io.ReadSeeker an SDK can
// rewind to sign and retry, and an io.ReaderAt that multipart uploads cut
// into parts without copying them.
func (b Body) Reader() *BodyReader {
	return &BodyReader{SectionReader: io.NewSectionReader(b, 0, b.size)}
}

// BodyReader reads a Body.
type BodyReader struct{ *io.SectionReader }

// Verifier returns a writer that checks the bytes written to it against
// the body from off (a range's start), and Check that says how the copy
// went: a truncated or corrupted body is an error of its own class.
func (b Body) Verifier(off int64) *Verifier {
	return &Verifier{body: b, start: off, off: off, sums: bodySums.get(b.size)}
}

// Verifier checks a body as it streams by; it holds no copy of it.
type Verifier struct {
	body       Body
	start, off int64
	bad        int64 // offset of the first differing byte, -1 none
	badSeen    bool
	sums       blockSums // the body's blocks' checksums (bodysums.go), or nil
}

// Write compares p with the body's bytes at the current offset; it never
// fails, so that the copy reads the whole response as a client would.
func (v *Verifier) Write(p []byte) (int, error) {
	if !v.badSeen {
		if at := v.body.mismatchSums(v.sums, p, v.off); at >= 0 {
			v.badSeen, v.bad = true, v.off+int64(at)
		}
	}
	v.off += int64(len(p))
	return len(p), nil
}

// Check returns nil when exactly want bytes arrived and all were the
// body's, else a storage.Error of class corrupt or truncated for key.
func (v *Verifier) Check(op, key string, want int64) error {
	got := v.off - v.start
	switch {
	case got < want:
		return &storage.Error{Op: op, Key: key, Class: storage.ClassTruncated,
			Err: fmt.Errorf("short read: %d of %d bytes", got, want)}
	case got > want:
		return &storage.Error{Op: op, Key: key, Class: storage.ClassCorrupt,
			Err: fmt.Errorf("long read: %d bytes, the object has %d", got, want)}
	case v.badSeen:
		return &storage.Error{Op: op, Key: key, Class: storage.ClassCorrupt,
			Err: fmt.Errorf("body differs from the bytes written at offset %d", v.bad)}
	}
	return nil
}
