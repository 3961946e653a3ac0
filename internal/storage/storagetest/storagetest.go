// Package storagetest is the conformance suite every storage.Backend runs:
// the in-memory one, MinIO, and each provider's emulator.
package storagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/objbench/objbench/internal/storage"
)

// Run runs the suite against backends made by newBackend. Every test writes
// under a random prefix and deletes exactly the keys it wrote.
func Run(t *testing.T, newBackend func(t *testing.T) storage.Backend) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, b storage.Backend, prefix string)
	}{
		{"RoundTrip", testRoundTrip},
		{"KeyNames", testKeyNames},
		{"Overwrite", testOverwrite},
		{"List", testList},
		{"NotFound", testNotFound},
		{"DeleteMissing", testDeleteMissing},
		{"Concurrent", testConcurrent},
		{"Cancelled", testCancelled},
		{"BucketExists", testBucketExists},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t)
			t.Cleanup(func() { b.Close() })
			tc.fn(t, b, randomPrefix())
		})
	}
}

func randomPrefix() string {
	p := make([]byte, 6)
	_, _ = rand.Read(p)
	return "conformance/" + hex.EncodeToString(p) + "/"
}

func payload(n int) []byte {
	p := make([]byte, n)
	_, _ = rand.Read(p)
	return p
}

func put(t *testing.T, b storage.Backend, key string, data []byte) {
	t.Helper()
	if err := b.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("put %q: %v", key, err)
	}
	t.Cleanup(func() { _ = b.Delete(context.Background(), key) })
}

func get(t *testing.T, b storage.Backend, key string) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := b.Get(context.Background(), key, &buf)
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("get %q returned %d, wrote %d bytes", key, n, buf.Len())
	}
	return buf.Bytes()
}

func testRoundTrip(t *testing.T, b storage.Backend, prefix string) {
	for _, size := range []int{0, 1 << 10, 1 << 20, 5 << 20} {
		key := fmt.Sprintf("%sobj-%d", prefix, size)
		data := payload(size)
		put(t, b, key, data)
		if got := get(t, b, key); !bytes.Equal(got, data) {
			t.Errorf("size %d: got %d bytes back, content differs", size, len(got))
		}
		info, err := b.Head(context.Background(), key)
		if err != nil || info.Size != int64(size) {
			t.Errorf("head %q: size %d err %v, want %d", key, info.Size, err, size)
		}
	}
}

func testKeyNames(t *testing.T, b storage.Backend, prefix string) {
	written := 0
	for _, tc := range []struct {
		name string
		// mayRefuse: some servers (MinIO) refuse ".." segments with a
		// client error; that is fine, writing anywhere else is not.
		mayRefuse bool
	}{{"with space", false}, {"ünïcødé-ключ-鍵", false}, {"a/../b", true}, {"plus+and=equals", false}, {"dots./.hidden", true}} {
		key := prefix + tc.name
		data := []byte(tc.name)
		err := b.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)))
		if err != nil && tc.mayRefuse && storage.Classify(err) == storage.ClassClient {
			continue
		}
		if err != nil {
			t.Errorf("put %q: %v", key, err)
			continue
		}
		written++
		t.Cleanup(func() { _ = b.Delete(context.Background(), key) })
		if got := get(t, b, key); !bytes.Equal(got, data) {
			t.Errorf("%q: got %q", key, got)
		}
	}
	var keys []string
	if err := b.List(context.Background(), prefix, func(oi storage.ObjectInfo) error {
		keys = append(keys, oi.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(keys) != written {
		t.Errorf("listed %d keys under %s, want %d: %q", len(keys), prefix, written, keys)
	}
}

func testOverwrite(t *testing.T, b storage.Backend, prefix string) {
	key := prefix + "over"
	put(t, b, key, []byte("first"))
	put(t, b, key, []byte("second, longer"))
	if got := string(get(t, b, key)); got != "second, longer" {
		t.Errorf("after overwrite: %q", got)
	}
}

func testList(t *testing.T, b storage.Backend, prefix string) {
	want := []string{prefix + "a", prefix + "b/c", prefix + "b/d"}
	for _, k := range want {
		put(t, b, k, []byte(k))
	}
	put(t, b, prefix[:len(prefix)-1]+"-outside", []byte("x"))
	var got []string
	err := b.List(context.Background(), prefix, func(oi storage.ObjectInfo) error {
		got = append(got, oi.Key)
		if oi.Size != int64(len(oi.Key)) {
			t.Errorf("%s: size %d", oi.Key, oi.Size)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("list %s = %q, want %q", prefix, got, want)
	}
	stop := fmt.Errorf("stop")
	n := 0
	if err := b.List(context.Background(), prefix, func(storage.ObjectInfo) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("List did not stop at the callback's error: %v after %d", err, n)
	}
}

func testNotFound(t *testing.T, b storage.Backend, prefix string) {
	key := prefix + "gone"
	put(t, b, key, []byte("x"))
	if err := b.Delete(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	_, err := b.Get(context.Background(), key, &bytes.Buffer{})
	if c := storage.Classify(err); c != storage.ClassNotFound {
		t.Errorf("get after delete: class %q (%v), want not_found", c, err)
	}
	_, err = b.Head(context.Background(), key)
	if c := storage.Classify(err); c != storage.ClassNotFound {
		t.Errorf("head after delete: class %q (%v), want not_found", c, err)
	}
}

func testDeleteMissing(t *testing.T, b storage.Backend, prefix string) {
	if err := b.Delete(context.Background(), prefix+"never-written"); err != nil {
		t.Errorf("delete of a missing key: %v", err)
	}
}

func testConcurrent(t *testing.T, b storage.Backend, prefix string) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("%sc%d", prefix, i)
			data := payload(64 << 10)
			if err := b.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
				errs <- err
				return
			}
			defer b.Delete(context.Background(), key)
			var buf bytes.Buffer
			if _, err := b.Get(context.Background(), key, &buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
				errs <- fmt.Errorf("%s: %v (equal %v)", key, err, bytes.Equal(buf.Bytes(), data))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testCancelled(t *testing.T, b storage.Backend, prefix string) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Put(ctx, prefix+"cancelled", bytes.NewReader([]byte("x")), 1); err == nil {
		_ = b.Delete(context.Background(), prefix+"cancelled")
		t.Error("put with a cancelled context succeeded")
	}
	if _, err := b.Get(ctx, prefix+"cancelled", &bytes.Buffer{}); err == nil {
		t.Error("get with a cancelled context succeeded")
	}
}

func testBucketExists(t *testing.T, b storage.Backend, _ string) {
	ok, err := b.BucketExists(context.Background())
	if err != nil || !ok {
		t.Errorf("BucketExists = %v, %v for the suite's bucket", ok, err)
	}
}
