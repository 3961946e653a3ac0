package storage

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestCopyBody(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 1, copyBufSize - 1, copyBufSize, copyBufSize + 1, 3<<20 + 7} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		for name, r := range map[string]io.Reader{
			"whole":   bytes.NewReader(data),
			"onebyte": iotest.OneByteReader(bytes.NewReader(data[:min(size, 4096)])),
			"halves":  iotest.HalfReader(bytes.NewReader(data)),
		} {
			want := data
			if name == "onebyte" {
				want = data[:min(size, 4096)]
			}
			var got bytes.Buffer
			n, err := CopyBody(&got, r)
			if err != nil || n != int64(len(want)) || !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%d %s: copied %d of %d, equal %v, err %v", size, name, n, len(want), bytes.Equal(got.Bytes(), want), err)
			}
		}
	}
	boom := errors.New("boom")
	n, err := CopyBody(io.Discard, io.MultiReader(bytes.NewReader(make([]byte, 100)), iotest.ErrReader(boom)))
	if n != 100 || !errors.Is(err, boom) {
		t.Errorf("failing reader: %d, %v; want 100, boom", n, err)
	}
}

// sizesReader records the size of each read asked of it and returns at
// most short bytes the first time.
type sizesReader struct {
	r     io.Reader
	short int
	asked []int
}

func (s *sizesReader) Read(p []byte) (int, error) {
	s.asked = append(s.asked, len(p))
	if len(s.asked) == 1 {
		p = p[:s.short]
	}
	return s.r.Read(p)
}

// TestCopyBodyRealigns: after a short read, the next read asks only for
// the rest of a buffer, and every later one for a whole buffer, so that
// writes after the first start at multiples of the buffer's size.
func TestCopyBodyRealigns(t *testing.T) {
	t.Parallel()
	r := &sizesReader{r: bytes.NewReader(make([]byte, 3*copyBufSize)), short: 3000}
	n, err := CopyBody(io.Discard, r)
	if err != nil || n != 3*copyBufSize {
		t.Fatalf("copied %d, %v", n, err)
	}
	want := []int{copyBufSize, copyBufSize - 3000, copyBufSize, copyBufSize, copyBufSize}
	if len(r.asked) < len(want) {
		t.Fatalf("reads asked %v, want %v then the end", r.asked, want)
	}
	for i, w := range want {
		if r.asked[i] != w {
			t.Errorf("read %d asked %d bytes, want %d (all: %v)", i, r.asked[i], w, r.asked)
		}
	}
}
