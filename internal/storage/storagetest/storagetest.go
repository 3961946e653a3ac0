// Package storagetest is the conformance suite every storage.Backend runs:
// the in-memory one, MinIO, and each provider's emulator.
package storagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/objbench/objbench/internal/storage"
)

// Run runs the suite against backends made by newBackend, whose bucket must
// exist. Every test writes under its own random prefix, deletes exactly the
// keys it wrote, and checks at the end that its prefix is empty again.
//
// The tests run in parallel with each other; Run returns when all are done,
// so the caller may release the server after it.
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
		{"ListPages", testListPages},
		{"NotFound", testNotFound},
		{"DeleteMissing", testDeleteMissing},
		{"Concurrent", testConcurrent},
		{"Cancelled", testCancelled},
		{"BucketExists", testBucketExists},
		{"GetRange", testGetRange},
	}
	// The group waits for its parallel subtests, so that Run returns only
	// when every test is done.
	t.Run("group", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				b := newBackend(t)
				prefix := randomPrefix()
				// Cleanups run last-in first-out: this one runs after the
				// deletes registered by the test.
				t.Cleanup(func() {
					defer b.Close()
					if left := list(t, b, prefix); len(left) > 0 {
						t.Errorf("keys left under %s after the test: %q", prefix, left)
					}
				})
				tc.fn(t, b, prefix)
			})
		}
	})
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

// put writes key and registers its deletion.
func put(t *testing.T, b storage.Backend, key string, data []byte) {
	t.Helper()
	if err := b.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("put %q: %v", key, err)
	}
	cleanup(t, b, key)
}

func cleanup(t *testing.T, b storage.Backend, key string) {
	t.Cleanup(func() {
		if err := b.Delete(context.Background(), key); err != nil {
			t.Errorf("cleanup: delete %q: %v", key, err)
		}
	})
}

// get reads key and checks that the count Get returns is the bytes written.
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

// list returns the keys under prefix, sorted.
func list(t *testing.T, b storage.Backend, prefix string) []string {
	t.Helper()
	var keys []string
	if err := b.List(context.Background(), prefix, func(oi storage.ObjectInfo) error {
		keys = append(keys, oi.Key)
		return nil
	}); err != nil {
		t.Fatalf("list %s: %v", prefix, err)
	}
	sort.Strings(keys)
	return keys
}

func testRoundTrip(t *testing.T, b storage.Backend, prefix string) {
	for _, size := range []int{0, 1 << 10, 1 << 20, 5 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			key := fmt.Sprintf("%sobj-%d", prefix, size)
			data := payload(size)
			put(t, b, key, data)
			var buf bytes.Buffer
			n, err := b.Get(context.Background(), key, &buf)
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			if n != int64(size) || !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("get returned %d, wrote %d bytes, want %d; content equal %v", n, buf.Len(), size, bytes.Equal(buf.Bytes(), data))
			}
			info, err := b.Head(context.Background(), key)
			if err != nil || info.Size != int64(size) {
				t.Errorf("head: size %d err %v, want %d", info.Size, err, size)
			}
			if err == nil && info.Key != key {
				t.Errorf("head: key %q, want %q", info.Key, key)
			}
		})
	}
}

// testKeyNames writes keys that need escaping or that a path-based server
// could misread; each must come back under its literal name.
func testKeyNames(t *testing.T, b storage.Backend, prefix string) {
	var written []string
	for _, tc := range []struct {
		name string
		// mayRefuse: some servers (MinIO) refuse ".." segments and empty
		// path segments with a client error; that is fine, writing the
		// object anywhere else than under its literal name is not.
		mayRefuse bool
	}{
		{"with space", false},
		{"ünïcødé-ключ-鍵", false},
		{"plus+and=equals&amp;semi", false},
		{"percent%2F%25", false},
		{"question?mark", false},
		{"hash#tag", false},
		{"tilde~star*quote'", false},
		{"a/../b", true},
		{"a/./b", true},
		{"double//slash", true},
		{"dots./.hidden", true},
	} {
		key := prefix + tc.name
		data := []byte(tc.name)
		err := b.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)))
		if err != nil && tc.mayRefuse && storage.Classify(err) == storage.ClassClient {
			t.Logf("%q refused: %v", tc.name, err)
			continue
		}
		if err != nil {
			t.Errorf("put %q: %v", key, err)
			continue
		}
		written = append(written, key)
		cleanup(t, b, key)
		if got := get(t, b, key); !bytes.Equal(got, data) {
			t.Errorf("%q: got %q", key, got)
		}
		if info, err := b.Head(context.Background(), key); err != nil || info.Size != int64(len(data)) {
			t.Errorf("head %q: %+v %v", key, info, err)
		}
	}
	sort.Strings(written)
	got := list(t, b, prefix)
	if slices.Equal(got, written) {
		return
	}
	// Some servers (fake-gcs-server's filesystem backend) store "a/../b"
	// as "b": acceptable while the object stays under the prefix, which
	// the cleaned comparison and the prefix check below ensure.
	clean := func(keys []string) []string {
		out := make([]string, len(keys))
		for i, k := range keys {
			if !strings.HasPrefix(k, prefix) {
				t.Errorf("listed %q outside the prefix %s", k, prefix)
			}
			out[i] = prefix + path.Clean(strings.TrimPrefix(k, prefix))
		}
		sort.Strings(out)
		return out
	}
	if !slices.Equal(clean(got), clean(written)) {
		t.Errorf("list %s = %q, want %q", prefix, got, written)
	} else {
		t.Logf("the server normalised key names: listed %q for %q", got, written)
	}
}

func testOverwrite(t *testing.T, b storage.Backend, prefix string) {
	key := prefix + "over"
	put(t, b, key, []byte("first, the longer one"))
	if err := b.Put(context.Background(), key, bytes.NewReader([]byte("second")), 6); err != nil {
		t.Fatal(err)
	}
	if got := string(get(t, b, key)); got != "second" {
		t.Errorf("after overwrite: %q", got)
	}
	if info, err := b.Head(context.Background(), key); err != nil || info.Size != 6 {
		t.Errorf("head after overwrite: %+v %v", info, err)
	}
}

func testList(t *testing.T, b storage.Backend, prefix string) {
	want := []string{prefix + "a", prefix + "b/c", prefix + "b/d", prefix + "b/e/f"}
	for _, k := range want {
		put(t, b, k, []byte(k))
	}
	// A key that shares the prefix's text but is not under it. (Not the
	// prefix without its slash: MinIO then lists nothing under the prefix,
	// as a file and a folder of one name cannot both be on its disk.)
	put(t, b, prefix[:len(prefix)-1]+"-outside", []byte("x"))
	var got []string
	err := b.List(context.Background(), prefix, func(oi storage.ObjectInfo) error {
		got = append(got, oi.Key)
		if oi.Size != int64(len(oi.Key)) {
			t.Errorf("%s: size %d, want %d", oi.Key, oi.Size, len(oi.Key))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("list %s = %q, want %q", prefix, got, want)
	}
	if got := list(t, b, prefix+"b/"); !slices.Equal(got, want[1:]) {
		t.Errorf("list %sb/ = %q, want %q", prefix, got, want[1:])
	}
	if got := list(t, b, prefix+"nothing/"); len(got) != 0 {
		t.Errorf("list of an empty prefix = %q", got)
	}
	stop := errors.New("stop")
	n := 0
	if err := b.List(context.Background(), prefix, func(storage.ObjectInfo) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("List did not stop at the callback's error: %v after %d calls", err, n)
	}
}

// testListPages lists more keys than one S3 page (1000) holds.
func testListPages(t *testing.T, b storage.Backend, prefix string) {
	if testing.Short() {
		t.Skip("writes 1010 objects")
	}
	const n, workers = 1010, 16
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("%sk%04d", prefix, i)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		done []string
	)
	keys := make(chan string)
	for range workers {
		wg.Go(func() {
			for k := range keys {
				err := b.Put(context.Background(), k, bytes.NewReader(nil), 0)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					done = append(done, k)
				}
				mu.Unlock()
			}
		})
	}
	for _, k := range want {
		keys <- k
	}
	close(keys)
	wg.Wait()
	t.Cleanup(func() {
		// Deleted in parallel too: one by one over HTTP takes a while.
		ch := make(chan string)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for k := range ch {
					if err := b.Delete(context.Background(), k); err != nil {
						t.Errorf("cleanup: delete %q: %v", k, err)
					}
				}
			})
		}
		for _, k := range done {
			ch <- k
		}
		close(ch)
		wg.Wait()
	})
	if len(errs) > 0 {
		t.Fatalf("%d puts failed, first: %v", len(errs), errs[0])
	}
	if got := list(t, b, prefix); !slices.Equal(got, want) {
		t.Errorf("listed %d keys, want %d", len(got), len(want))
	}
}

func testNotFound(t *testing.T, b storage.Backend, prefix string) {
	key := prefix + "gone"
	if err := b.Put(context.Background(), key, bytes.NewReader([]byte("x")), 1); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{key, prefix + "never-written"} {
		n, err := b.Get(context.Background(), k, &bytes.Buffer{})
		if c := storage.Classify(err); c != storage.ClassNotFound || n != 0 {
			t.Errorf("get %s: %d bytes, class %q (%v), want not_found", k, n, c, err)
		}
		_, err = b.Head(context.Background(), k)
		if c := storage.Classify(err); c != storage.ClassNotFound {
			t.Errorf("head %s: class %q (%v), want not_found", k, c, err)
		}
	}
}

func testDeleteMissing(t *testing.T, b storage.Backend, prefix string) {
	if err := b.Delete(context.Background(), prefix+"never-written"); err != nil {
		t.Errorf("delete of a missing key: %v", err)
	}
	key := prefix + "twice"
	if err := b.Put(context.Background(), key, bytes.NewReader([]byte("x")), 1); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := b.Delete(context.Background(), key); err != nil {
			t.Errorf("delete #%d: %v", i+1, err)
		}
	}
}

// testConcurrent has 8 goroutines write their own keys and read a shared
// one at the same time.
func testConcurrent(t *testing.T, b storage.Backend, prefix string) {
	shared := payload(256 << 10)
	put(t, b, prefix+"shared", shared)
	var wg sync.WaitGroup
	errs := make(chan error, 8*4)
	for i := range 8 {
		key := fmt.Sprintf("%sc%d", prefix, i)
		data := payload(64<<10 + i)
		wg.Go(func() {
			if err := b.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
				errs <- err
				return
			}
			defer func() {
				if err := b.Delete(context.Background(), key); err != nil {
					errs <- err
				}
			}()
			for k, want := range map[string][]byte{key: data, prefix + "shared": shared} {
				var buf bytes.Buffer
				n, err := b.Get(context.Background(), k, &buf)
				if err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
					errs <- fmt.Errorf("get %s: %d bytes, %v (content equal %v)", k, n, err, bytes.Equal(buf.Bytes(), want))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testCancelled(t *testing.T, b storage.Backend, prefix string) {
	key := prefix + "exists"
	put(t, b, key, []byte("x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	check := func(op string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s with a cancelled context succeeded", op)
		} else if c := storage.Classify(err); c != storage.ClassCanceled {
			t.Errorf("%s with a cancelled context: class %q (%v), want canceled", op, c, err)
		}
	}
	err := b.Put(ctx, prefix+"cancelled", bytes.NewReader([]byte("x")), 1)
	if err == nil {
		cleanup(t, b, prefix+"cancelled")
	}
	check("put", err)
	var buf bytes.Buffer
	_, err = b.Get(ctx, key, &buf)
	check("get", err)
	if buf.Len() != 0 {
		t.Errorf("get with a cancelled context wrote %d bytes", buf.Len())
	}
	_, err = b.Head(ctx, key)
	check("head", err)
	check("list", b.List(ctx, prefix, func(storage.ObjectInfo) error { return nil }))
	check("delete", b.Delete(ctx, key))
	_, err = b.BucketExists(ctx)
	check("bucket exists", err)
	if got := get(t, b, key); string(got) != "x" {
		t.Errorf("after a cancelled delete: %q", got)
	}
}

func testBucketExists(t *testing.T, b storage.Backend, _ string) {
	ok, err := b.BucketExists(context.Background())
	if err != nil || !ok {
		t.Errorf("BucketExists = %v, %v for the suite's bucket", ok, err)
	}
}

// testGetRange: a client that reads ranges returns exactly the bytes of
// each range asked for (the first, one inside, one across 256 KiB reads,
// the last), as ranged downloads split an object.
func testGetRange(t *testing.T, b storage.Backend, prefix string) {
	rg, ok := b.(storage.RangeGetter)
	if !ok {
		t.Skip("this client reads no ranges")
	}
	data := payload(1<<20 + 333)
	key := prefix + "ranges"
	put(t, b, key, data)
	for _, r := range []struct{ off, n int64 }{{0, 1}, {1000, 4096}, {200 << 10, 300 << 10}, {int64(len(data)) - 333, 333}} {
		var buf bytes.Buffer
		n, err := rg.GetRange(context.Background(), key, r.off, r.n, &buf)
		if err != nil || n != r.n || !bytes.Equal(buf.Bytes(), data[r.off:r.off+r.n]) {
			t.Errorf("range %d+%d: %d bytes, equal %v, %v", r.off, r.n, n, bytes.Equal(buf.Bytes(), data[r.off:r.off+r.n]), err)
		}
	}
}
