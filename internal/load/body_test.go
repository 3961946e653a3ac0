package load

import (
	"bytes"
	"compress/gzip"
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
