package storage_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
)

// flaky fails its first n calls with err.
type flaky struct {
	storage.Backend
	n     int
	err   error
	calls int
}

func (f *flaky) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	f.calls++
	if f.calls <= f.n {
		_, _ = body.Read(make([]byte, 1)) // a failed try consumed some body
		return f.err
	}
	return f.Backend.Put(ctx, key, body, size)
}

func TestWithRetries(t *testing.T) {
	t.Parallel()
	reset := &storage.Error{Class: storage.ClassReset}
	refused := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	denied := &storage.Error{Status: 403, Class: storage.ClassAccessDenied}
	timeout := &storage.Error{Class: storage.ClassTimeout}
	tests := []struct {
		name      string
		failures  int
		err       error
		wantCalls int
		wantOK    bool
	}{
		{"reset then success", 3, reset, 4, true},
		{"reset beyond attempts", 10, reset, 5, false},
		{"refused is not retried", 3, refused, 1, false},
		{"denied is not retried", 3, denied, 1, false},
		{"timeouts bounded apart", 10, timeout, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &flaky{Backend: mem.New("retry-"+tc.name, true), n: tc.failures, err: tc.err}
			b := storage.WithRetries(f, 5, 2, time.Second)
			err := b.Put(context.Background(), "k", bytes.NewReader([]byte("data")), 4)
			if (err == nil) != tc.wantOK || f.calls != tc.wantCalls {
				t.Errorf("err %v after %d calls, want ok=%v after %d", err, f.calls, tc.wantOK, tc.wantCalls)
			}
			if tc.wantOK {
				var buf bytes.Buffer
				if _, err := b.Get(context.Background(), "k", &buf); err != nil || buf.String() != "data" {
					t.Errorf("stored %q %v: the body was not rewound between tries", buf.String(), err)
				}
			}
		})
	}
}
