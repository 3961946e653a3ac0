package load

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"

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

var blockPool = sync.Pool{New: func() any { return new([bodyBlock]byte) }}

// fill writes the bytes of block i into dst (at most a block's worth):
// wyrand's output from a seed of the body's and the block's, as random to
// a compressor as any, at 15-20 GB/s a core (ChaCha8 makes 0.6 here), so
// that generating and checking bodies stays far from a download's cost.
func (b Body) fill(i int64, dst []byte) {
	s := b.seed ^ uint64(i)*0xe7037ed1a0b428db
	j := 0
	for ; j+8 <= len(dst); j += 8 {
		s += 0xa0761d6478bd642f
		hi, lo := bits.Mul64(s, s^0xe7037ed1a0b428db)
		binary.LittleEndian.PutUint64(dst[j:], hi^lo)
	}
	if j < len(dst) {
		s += 0xa0761d6478bd642f
		hi, lo := bits.Mul64(s, s^0xe7037ed1a0b428db)
		var last [8]byte
		binary.LittleEndian.PutUint64(last[:], hi^lo)
		copy(dst[j:], last[:])
	}
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
		if in == 0 && want == bodyBlock {
			b.fill(i, p[n:n+bodyBlock])
		} else {
			blk := blockPool.Get().(*[bodyBlock]byte)
			b.fill(i, blk[:in+want])
			copy(p[n:], blk[in:in+want])
			blockPool.Put(blk)
		}
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
func (b Body) Verifier(off int64) *Verifier { return &Verifier{body: b, start: off, off: off} }

// Verifier checks a body as it streams by; it keeps one block.
type Verifier struct {
	body       Body
	start, off int64
	bad        int64 // offset of the first differing byte, -1 none
	badSeen    bool
	buf        []byte
}

// Write compares p with the body's bytes at the current offset; it never
// fails, so that the copy reads the whole response as a client would.
func (v *Verifier) Write(p []byte) (int, error) {
	if v.buf == nil {
		v.buf = make([]byte, bodyBlock)
	}
	for done := 0; done < len(p); {
		chunk := p[done:min(len(p), done+bodyBlock)]
		n, _ := v.body.ReadAt(v.buf[:len(chunk)], v.off)
		if !v.badSeen && !bytes.Equal(chunk[:n], v.buf[:n]) || n < len(chunk) && !v.badSeen {
			v.badSeen = true
			for j := range chunk {
				if j >= n || chunk[j] != v.buf[j] {
					v.bad = v.off + int64(j)
					break
				}
			}
		}
		v.off += int64(len(chunk))
		done += len(chunk)
	}
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
