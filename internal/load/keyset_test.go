package load

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
	"github.com/objbench/objbench/internal/units"
)

func TestSplitKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key  string
		stem string
		i    int
		ok   bool
	}{
		{"run/lat/1KiB/41", "run/lat/1KiB/", 41, true},
		{"run/pool/0", "run/pool/", 0, true},
		{"7", "", 7, true},
		{"run/a/007", "", 0, false},        // leading zero: Itoa would not give it back
		{"run/a/00", "", 0, false},         // the same
		{"run/a/", "", 0, false},           // no counter
		{"run/a/12x", "", 0, false},        // not at the end
		{"run/a/1234567890", "", 0, false}, // past maxCounterDigits
		{"run/a/-3", "run/a/-", 3, true},   // the sign is the stem's
	}
	for _, tt := range tests {
		stem, i, ok := splitKey(tt.key)
		if ok != tt.ok || ok && (stem != tt.stem || i != tt.i) {
			t.Errorf("splitKey(%q) = %q, %d, %v; want %q, %d, %v", tt.key, stem, i, ok, tt.stem, tt.i, tt.ok)
		}
		if ok && stem+strconv.Itoa(i) != tt.key {
			t.Errorf("splitKey(%q): %q+%d does not give it back", tt.key, stem, i)
		}
	}
}

// TestKeySetExact: every key added comes back exactly, once, whether kept
// as a bit or whole, and a removed one does not.
func TestKeySetExact(t *testing.T) {
	t.Parallel()
	var k KeySet
	add := []string{"run/lat/1KiB/0", "run/lat/1KiB/63", "run/lat/1KiB/64", "run/lat/1KiB/4095", "run/lat/1KiB/4096",
		"run/lat/1KiB/999999999", "run/lat/0B/5", "run/a/007", "run/a/1234567890", "run/a/", "5", "run/lat/1KiB/63"}
	for _, key := range add {
		k.Add(key)
	}
	want := slices.Compact(slices.Sorted(slices.Values(add)))
	if got := slices.Sorted(slices.Values(k.Keys())); !slices.Equal(got, want) || k.Len() != len(want) {
		t.Fatalf("keys %q (Len %d), want %q", got, k.Len(), want)
	}
	for _, key := range []string{"run/lat/1KiB/4096", "run/a/007", "run/lat/1KiB/7", "run/a/7", "nothing"} {
		k.Remove(key) // the last three were never added: no effect
	}
	want = slices.DeleteFunc(want, func(s string) bool { return s == "run/lat/1KiB/4096" || s == "run/a/007" })
	if got := slices.Sorted(slices.Values(k.Keys())); !slices.Equal(got, want) || k.Len() != len(want) {
		t.Fatalf("after Remove: keys %q (Len %d), want %q", got, k.Len(), want)
	}
	// Removing during All sees the keys as they were when it started.
	n := 0
	for key := range k.All() {
		k.Remove(key)
		n++
	}
	if n != len(want) || k.Len() != 0 || len(k.Keys()) != 0 {
		t.Errorf("All yielded %d of %d; after removing them Len %d", n, len(want), k.Len())
	}
}

// TestKeySetCompact: a million keys of one stem cost a bit each, where a
// map of strings cost about 80 bytes each (78 MB measured for a million,
// with a program that filled one). The bound
// (2 MB, against the 125 KB of bits and the pages' map) holds whatever
// else the machine runs: it counts this goroutine's live heap, not time.
func TestKeySetCompact(t *testing.T) {
	const n = 1_000_000
	var k KeySet
	grew := heapGrowth(func() {
		for i := range n {
			k.Add("run/lat/1KiB/" + strconv.Itoa(i))
		}
	})
	t.Logf("%d keys: heap grew %d KB", n, grew>>10)
	if k.Len() != n {
		t.Fatalf("Len %d, want %d", k.Len(), n)
	}
	if grew > 2<<20 {
		t.Errorf("%d keys take %d bytes, want at most 2 MB", n, grew)
	}
}

// TestCleanupInBatches: a cleanup of more keys than a batch deletes every
// object the run wrote and none it did not (an object with a key of the
// same stem, there before the run, is kept).
func TestCleanupInBatches(t *testing.T) {
	t.Parallel()
	b := mem.New("cleanup-batches", true)
	ctx := context.Background()
	s := &Session{Setup: b, Prefix: "run/", Keep: map[string]bool{"run/put/100": true}}
	put := func(key string) {
		if err := b.Put(ctx, key, bytes.NewReader([]byte("x")), 1); err != nil {
			t.Fatal(err)
		}
	}
	put("run/put/100") // there before the run
	put("other/put/1")
	const n = 3*cleanupBatch + 7
	for i := range n {
		key := fmt.Sprintf("run/put/%d", i)
		s.Written.Add(key)
		if !s.Keep[key] {
			put(key)
		}
	}
	deleted, err := s.Cleanup(time.Minute)
	if err != nil || deleted != n-1 {
		t.Fatalf("deleted %d (%v), want %d", deleted, err, n-1)
	}
	var left []string
	_ = b.List(ctx, "", func(oi storage.ObjectInfo) error { left = append(left, oi.Key); return nil })
	if !slices.Equal(left, []string{"other/put/1", "run/put/100"}) {
		t.Errorf("after cleanup: %q, want only the objects that were there before", left)
	}
}

// BenchmarkPutBookkeeping is what a PUT step costs objbench per request
// besides the request: its key and the record of it for cleanup, as they
// were (fmt.Sprintf, a map of strings) and as they are (a stem made once,
// a bit in KeySet), side by side.
func BenchmarkPutBookkeeping(b *testing.B) {
	const prefix, size = "objbench-run/", int64(1024)
	b.Run("sprintf-map", func(b *testing.B) {
		b.ReportAllocs()
		var mu sync.Mutex
		keys := map[string]struct{}{}
		for i := range b.N {
			key := fmt.Sprintf("%slat/%s/%d", prefix, units.FormatSize(size), i)
			mu.Lock()
			keys[key] = struct{}{}
			mu.Unlock()
		}
	})
	b.Run("stem-keyset", func(b *testing.B) {
		b.ReportAllocs()
		var k KeySet
		stem := prefix + "lat/" + units.FormatSize(size) + "/"
		for i := range b.N {
			k.Add(stem + strconv.Itoa(i))
		}
	})
}

// TestStoredOrder: the stored keys come back once each, whether kept as
// bits or whole, and whether the reader gets strings made once or each
// made when read (past storedStrings): the keys kept whole first, then by
// stem and counter.
func TestStoredOrder(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, storedStrings + 100} {
		var s Stored
		seen := map[string]bool{}
		add := func(key string) {
			s.Add(key)
			seen[key] = true
		}
		for i := range n {
			// Out of counter order (as concurrent workers store them), a
			// second stem, counters past a page, keys kept whole, repeats.
			j := (i * 7919) % n
			add("run/lat/1KiB/" + strconv.Itoa(j))
			if i%3 == 0 {
				add("run/lat/0B/" + strconv.Itoa(i*5))
			}
			if i%5 == 0 {
				add("run/odd/0" + strconv.Itoa(i%50))
			}
			add("run/lat/1KiB/" + strconv.Itoa(j)) // again: no effect
		}
		var want []string
		for key := range seen {
			want = append(want, key)
		}
		slices.SortFunc(want, func(a, b string) int {
			sa, ia, oka := splitKey(a)
			sb, ib, okb := splitKey(b)
			switch {
			case oka != okb:
				if !oka {
					return -1
				}
				return 1
			case !oka:
				return strings.Compare(a, b)
			case sa != sb:
				return strings.Compare(sa, sb)
			}
			return ia - ib
		})
		if got := s.Keys(); !slices.Equal(got, want) {
			t.Fatalf("n=%d: Keys: %d keys, want %d; first difference at %d", n, len(got), len(want), firstDiff(got, want))
		}
		m, key := s.view()
		got := make([]string, m)
		for j := range got {
			got[j] = key(j)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: view: %d keys, want %d; first difference at %d", n, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestStoredCompact: a million stored keys of one stem take a bit each
// (the bound, 2 MB, against 125 KB of bits; as strings in a map and a
// slice they took about 94 bytes each: 78 MB for the map, measured as in
// TestKeySetCompact, and 16 MB for the slice).
func TestStoredCompact(t *testing.T) {
	const n = 1_000_000
	var s Stored
	grew := heapGrowth(func() {
		for i := range n {
			s.Add("run/lat/1KiB/" + strconv.Itoa(i))
		}
	})
	t.Logf("%d keys: heap grew %d KB", n, grew>>10)
	if m, key := s.view(); m != n || key(n-1) != "run/lat/1KiB/"+strconv.Itoa(n-1) {
		t.Fatalf("view: %d keys, want %d", m, n)
	}
	if grew > 2<<20 {
		t.Errorf("%d stored keys take %d bytes, want at most 2 MB", n, grew)
	}
}

// heapGrowth is how much the live heap grew across fill, between two
// collections: what fill's data keeps, whatever else the machine runs.
func heapGrowth(fill func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fill()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
