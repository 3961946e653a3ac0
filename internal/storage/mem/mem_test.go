package mem

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

func uniqueBucket(t *testing.T) string {
	p := make([]byte, 4)
	_, _ = rand.Read(p)
	return "mem-test-" + hex.EncodeToString(p)
}

func TestConformance(t *testing.T) {
	t.Parallel()
	bucket := uniqueBucket(t)
	storagetest.Run(t, func(t *testing.T) storage.Backend { return New(bucket, true) })
}

func TestMissingBucket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := New(uniqueBucket(t), false)
	ok, err := b.BucketExists(ctx)
	if ok || err != nil {
		t.Errorf("BucketExists = %v, %v", ok, err)
	}
	_, getErr := b.Get(ctx, "k", &bytes.Buffer{})
	_, headErr := b.Head(ctx, "k")
	for name, err := range map[string]error{
		"put":    b.Put(ctx, "k", strings.NewReader("x"), 1),
		"get":    getErr,
		"head":   headErr,
		"list":   b.List(ctx, "", func(storage.ObjectInfo) error { return nil }),
		"delete": b.Delete(ctx, "k"),
	} {
		if c := storage.Classify(err); c != storage.ClassNotFound {
			t.Errorf("%s in a missing bucket: class %q (%v)", name, c, err)
		}
	}
	if err := b.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.BucketExists(ctx); !ok || err != nil {
		t.Errorf("after CreateBucket: %v, %v", ok, err)
	}
}

// TestShared checks that two clients of one bucket name see the same
// objects, and that objects are copied in and out.
func TestShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	name := uniqueBucket(t)
	a, b := New(name, true), New(name, true)
	buf := []byte("hello")
	if err := a.Put(ctx, "k", bytes.NewReader(buf), int64(len(buf))); err != nil {
		t.Fatal(err)
	}
	buf[0] = 'J' // the caller reuses its buffer
	var out bytes.Buffer
	if n, err := b.Get(ctx, "k", &out); err != nil || n != 5 || out.String() != "hello" {
		t.Fatalf("get = %d %q %v", n, out.String(), err)
	}
	out.Bytes()[0] = 'Y'
	out.Reset()
	if _, err := a.Get(ctx, "k", &out); err != nil || out.String() != "hello" {
		t.Errorf("second get = %q %v", out.String(), err)
	}
	info, err := a.Head(ctx, "k")
	if err != nil || info.ETag != `"5d41402abc4b2a76b9719d911017c592"` || info.Modified.IsZero() {
		t.Errorf("head = %+v %v", info, err)
	}
}

func TestShortBody(t *testing.T) {
	t.Parallel()
	b := New(uniqueBucket(t), true)
	err := b.Put(context.Background(), "k", strings.NewReader("abc"), 5)
	if c := storage.Classify(err); c != storage.ClassClient {
		t.Errorf("short body: class %q (%v)", c, err)
	}
	if _, err := b.Head(context.Background(), "k"); !storage.IsNotFound(err) {
		t.Errorf("a failed put left an object: %v", err)
	}
}
