// Package mem is an in-memory storage.Backend for unit tests. It makes no
// HTTP request, so nothing it does is timed; buckets of the same name share
// their objects within the process, as clients of one service would.
// Objects are copied in and out: callers may reuse their buffers.
package mem

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/storage"
)

var (
	bucketsMu sync.Mutex
	buckets   = map[string]*bucket{}
)

type object struct {
	data     []byte
	modified time.Time
	etag     string
}

type bucket struct {
	mu      sync.RWMutex
	objects map[string]object
}

// Backend is a client of one in-memory bucket.
type Backend struct {
	name string
}

var _ storage.Backend = (*Backend)(nil)

// New returns a client of the named bucket, creating it when create is set.
func New(name string, create bool) *Backend {
	if create {
		bucketsMu.Lock()
		if buckets[name] == nil {
			buckets[name] = &bucket{objects: map[string]object{}}
		}
		bucketsMu.Unlock()
	}
	return &Backend{name: name}
}

func (b *Backend) bucket(op, key string) (*bucket, error) {
	bucketsMu.Lock()
	defer bucketsMu.Unlock()
	bk := buckets[b.name]
	if bk == nil {
		return nil, &storage.Error{Op: op, Key: key, Status: 404, Code: "NoSuchBucket", Class: storage.ClassNotFound,
			Err: fmt.Errorf("bucket %q does not exist", b.name)}
	}
	return bk, nil
}

// ctxErr returns ctx's error as a *storage.Error of op, or nil.
func ctxErr(ctx context.Context, op, key string) error {
	if err := ctx.Err(); err != nil {
		return &storage.Error{Op: op, Key: key, Err: err}
	}
	return nil
}

// Put implements storage.Backend.
func (b *Backend) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	if err := ctxErr(ctx, "put", key); err != nil {
		return err
	}
	bk, err := b.bucket("put", key)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(body, size))
	if err != nil {
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassOther, Err: err}
	}
	if int64(len(data)) != size {
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient, Status: 400, Err: fmt.Errorf("body has %d bytes, want %d", len(data), size)}
	}
	if err := ctxErr(ctx, "put", key); err != nil {
		return err
	}
	sum := md5.Sum(data)
	bk.mu.Lock()
	bk.objects[key] = object{data: data, modified: time.Now(), etag: `"` + hex.EncodeToString(sum[:]) + `"`}
	bk.mu.Unlock()
	return nil
}

// Get implements storage.Backend.
func (b *Backend) Get(ctx context.Context, key string, w io.Writer) (int64, error) {
	o, err := b.get(ctx, "get", key)
	if err != nil {
		return 0, err
	}
	return io.Copy(w, bytes.NewReader(o.data))
}

// GetRange implements storage.RangeGetter.
func (b *Backend) GetRange(ctx context.Context, key string, off, n int64, w io.Writer) (int64, error) {
	o, err := b.get(ctx, "get", key)
	if err != nil {
		return 0, err
	}
	if off < 0 || off > int64(len(o.data)) {
		return 0, &storage.Error{Op: "get", Key: key, Status: 416, Class: storage.ClassClient, Err: fmt.Errorf("range at %d beyond %d bytes", off, len(o.data))}
	}
	return io.Copy(w, bytes.NewReader(o.data[off:min(off+n, int64(len(o.data)))]))
}

func (b *Backend) get(ctx context.Context, op, key string) (object, error) {
	if err := ctxErr(ctx, op, key); err != nil {
		return object{}, err
	}
	bk, err := b.bucket(op, key)
	if err != nil {
		return object{}, err
	}
	bk.mu.RLock()
	o, ok := bk.objects[key]
	bk.mu.RUnlock()
	if !ok {
		return object{}, &storage.Error{Op: op, Key: key, Status: 404, Code: "NoSuchKey", Class: storage.ClassNotFound}
	}
	return o, nil
}

// Head implements storage.Backend.
func (b *Backend) Head(ctx context.Context, key string) (storage.ObjectInfo, error) {
	o, err := b.get(ctx, "head", key)
	if err != nil {
		return storage.ObjectInfo{}, err
	}
	return storage.ObjectInfo{Key: key, Size: int64(len(o.data)), Modified: o.modified, ETag: o.etag}, nil
}

// List implements storage.Backend, in key order.
func (b *Backend) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	if err := ctxErr(ctx, "list", prefix); err != nil {
		return err
	}
	bk, err := b.bucket("list", prefix)
	if err != nil {
		return err
	}
	bk.mu.RLock()
	var infos []storage.ObjectInfo
	for k, o := range bk.objects {
		if strings.HasPrefix(k, prefix) {
			infos = append(infos, storage.ObjectInfo{Key: k, Size: int64(len(o.data)), Modified: o.modified, ETag: o.etag})
		}
	}
	bk.mu.RUnlock()
	sort.Slice(infos, func(i, j int) bool { return infos[i].Key < infos[j].Key })
	for _, oi := range infos {
		if err := ctxErr(ctx, "list", prefix); err != nil {
			return err
		}
		if err := fn(oi); err != nil {
			return err
		}
	}
	return nil
}

// Delete implements storage.Backend.
func (b *Backend) Delete(ctx context.Context, key string) error {
	if err := ctxErr(ctx, "delete", key); err != nil {
		return err
	}
	bk, err := b.bucket("delete", key)
	if err != nil {
		return err
	}
	bk.mu.Lock()
	delete(bk.objects, key)
	bk.mu.Unlock()
	return nil
}

// BucketExists implements storage.Backend.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	if err := ctxErr(ctx, "head bucket", ""); err != nil {
		return false, err
	}
	bucketsMu.Lock()
	defer bucketsMu.Unlock()
	return buckets[b.name] != nil, nil
}

// CreateBucket implements storage.Backend.
func (b *Backend) CreateBucket(ctx context.Context) error {
	if err := ctxErr(ctx, "create bucket", ""); err != nil {
		return err
	}
	New(b.name, true)
	return nil
}

// Close implements storage.Backend.
func (b *Backend) Close() error { return nil }
