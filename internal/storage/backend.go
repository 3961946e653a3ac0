// Package storage defines the provider-neutral object storage interface that
// workloads drive, the target URL syntax, and the shared error classes.
//
// Provider packages (s3, mem, …) implement Backend on top of their official
// SDK and take the instrumented *http.Client from the caller, so that every
// HTTP exchange is timed by internal/nettrace and nowhere else.
package storage

import (
	"context"
	"io"
	"time"
)

// Backend is one bucket (or container) of one provider. Keys are full object
// keys inside that bucket; callers add their prefix. All methods are safe for
// concurrent use and honour ctx cancellation.
type Backend interface {
	// Put stores size bytes read from body under key, replacing any object
	// there. body is seekable so that SDKs can sign and retry it.
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error
	// Get copies the whole object into w and returns the bytes copied.
	// It reads the body to its end: the bytes counted are the bytes received,
	// never a Content-Length taken on trust.
	Get(ctx context.Context, key string, w io.Writer) (int64, error)
	// Head returns the object's metadata without its body.
	Head(ctx context.Context, key string) (ObjectInfo, error)
	// List calls fn for each object whose key starts with prefix, in the
	// provider's order, until fn returns an error (which List returns).
	List(ctx context.Context, prefix string, fn func(ObjectInfo) error) error
	// Delete removes key. Deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// BucketExists reports whether the bucket is there and reachable with
	// the credentials in use (access denied is an error, not false).
	BucketExists(ctx context.Context) (bool, error)
	// CreateBucket creates the bucket.
	CreateBucket(ctx context.Context) error
	// Close releases the backend's resources; idle connections are closed by
	// the owner of the transport.
	Close() error
}

// ObjectInfo is what List and Head report about an object.
type ObjectInfo struct {
	Key      string
	Size     int64
	Modified time.Time
	ETag     string
}

// RangeGetter is a Backend that reads part of an object: what parallel
// ranged downloads (--download ranged) split a GET into.
type RangeGetter interface {
	// GetRange copies n bytes of key from offset off into w, reading the
	// response to its end, and returns the bytes copied.
	GetRange(ctx context.Context, key string, off, n int64, w io.Writer) (int64, error)
}
