package storage

import (
	"io"
	"sync"
)

// copyBufSize is the read size of CopyBody. io.Copy into io.Discard reads
// 8 KiB at a time: 4,096 reads (system calls, on a plain connection) per
// 32 MiB object. 256 KiB reads take what the socket holds in one call.
const copyBufSize = 256 << 10

var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// CopyBody copies a response body into w with large reads, for Get: the
// same bytes as io.Copy, in fewer read calls and less client CPU per GB.
func CopyBody(w io.Writer, body io.Reader) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	// Hiding ReaderFrom and WriterTo makes io.CopyBuffer use our buffer.
	return io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{body}, *bp)
}
