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
