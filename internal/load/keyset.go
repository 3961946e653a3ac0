package load

import (
	"iter"
	"math/bits"
	"sort"
	"strconv"
	"sync"
)

// KeySet is the set of keys this run wrote (or tried to write): cleanup
// deletes exactly these, never anything else. It lasts as long as the run,
// so a long PUT run would grow it without bound if each key were kept as a
// string (about 80 bytes with the map's share): the keys a run writes are
// a stem and a counter ("PREFIX/lat/1KiB/41"), and those are kept as one
// bit each in a bitmap per stem, 10,000,000 keys in 1.3 MB. A key is
// split so only when it is given back exactly as it was (the counter in
// canonical decimal: no sign, no leading zero); any other key is kept
// whole.
type KeySet struct {
	mu    sync.Mutex
	stems map[string]*counters
	other map[string]struct{}
	n     int
}

// counters is a set of non-negative integers, as a bitmap in pages of
// pageBits, so that a run that starts counting high costs no more than one
// that starts at zero.
type counters struct {
	pages map[int]*[pageBits / 64]uint64
}

const (
	pageBits = 4096
	// maxCounterDigits keeps the counter in an int on every platform.
	maxCounterDigits = 9
)

// splitKey cuts key into a stem and the counter that ends it, when
// stem+strconv.Itoa(i) gives key back.
func splitKey(key string) (stem string, i int, ok bool) {
	j := len(key)
	for j > 0 && key[j-1] >= '0' && key[j-1] <= '9' {
		j--
	}
	d := key[j:]
	if d == "" || len(d) > maxCounterDigits || (len(d) > 1 && d[0] == '0') {
		return "", 0, false
	}
	i, err := strconv.Atoi(d)
	if err != nil {
		return "", 0, false
	}
	return key[:j], i, true
}

// Add records key.
func (k *KeySet) Add(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.add(key)
}

// add records key and says whether it was new; k.mu is held.
func (k *KeySet) add(key string) bool {
	stem, i, ok := splitKey(key)
	if !ok {
		if k.other == nil {
			k.other = map[string]struct{}{}
		}
		if _, had := k.other[key]; had {
			return false
		}
		k.other[key] = struct{}{}
		k.n++
		return true
	}
	if k.stems == nil {
		k.stems = map[string]*counters{}
	}
	c := k.stems[stem]
	if c == nil {
		c = &counters{pages: map[int]*[pageBits / 64]uint64{}}
		k.stems[stem] = c
	}
	p := c.pages[i/pageBits]
	if p == nil {
		p = new([pageBits / 64]uint64)
		c.pages[i/pageBits] = p
	}
	w, bit := &p[i%pageBits/64], uint64(1)<<(i%64)
	if *w&bit != 0 {
		return false
	}
	*w |= bit
	k.n++
	return true
}

// Remove forgets key (it was deleted).
func (k *KeySet) Remove(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	stem, i, ok := splitKey(key)
	if !ok {
		if _, had := k.other[key]; had {
			delete(k.other, key)
			k.n--
		}
		return
	}
	c := k.stems[stem]
	if c == nil {
		return
	}
	p := c.pages[i/pageBits]
	if p == nil {
		return
	}
	w, bit := &p[i%pageBits/64], uint64(1)<<(i%64)
	if *w&bit == 0 {
		return
	}
	*w &^= bit
	k.n--
	for _, x := range p {
		if x != 0 {
			return
		}
	}
	delete(c.pages, i/pageBits)
	if len(c.pages) == 0 {
		delete(k.stems, stem)
	}
}

// All yields the recorded keys, as they were when it started (a copy of
// the bitmaps, so that the caller may Remove keys meanwhile), making each
// string only when it is yielded.
func (k *KeySet) All() iter.Seq[string] {
	type page struct {
		stem string
		base int
		bits [pageBits / 64]uint64
	}
	k.mu.Lock()
	var pages []page
	for stem, c := range k.stems {
		for n, p := range c.pages {
			pages = append(pages, page{stem, n * pageBits, *p})
		}
	}
	other := make([]string, 0, len(k.other))
	for key := range k.other {
		other = append(other, key)
	}
	k.mu.Unlock()
	sort.Slice(pages, func(a, b int) bool {
		if pages[a].stem != pages[b].stem {
			return pages[a].stem < pages[b].stem
		}
		return pages[a].base < pages[b].base
	})
	return func(yield func(string) bool) {
		for _, key := range other {
			if !yield(key) {
				return
			}
		}
		for _, p := range pages {
			for w, x := range p.bits {
				for x != 0 {
					b := bits.TrailingZeros64(x)
					x &^= 1 << b
					if !yield(p.stem + strconv.Itoa(p.base+w*64+b)) {
						return
					}
				}
			}
		}
	}
}

// Keys returns the recorded keys.
func (k *KeySet) Keys() []string {
	out := make([]string, 0, k.Len())
	for key := range k.All() {
		out = append(out, key)
	}
	return out
}

// Len is the number of recorded keys.
func (k *KeySet) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.n
}

// Stored is the keys a write step stored, each once, in the order they were
// first stored: what the read steps after it may read. A key whose upload
// failed, or was never made because the step reached its --duration first,
// is not in it, so a read step never asks for an object that objbench did
// not write: a not_found there would be objbench's bookkeeping, not the
// storage's. As in KeySet, a key that is a stem and a counter is kept as
// 8 bytes (the stem's number and the counter) rather than a string, so
// that a long PUT step's record stays small.
type Stored struct {
	mu    sync.Mutex
	seen  KeySet
	order []uint64 // stem<<32 | counter, or wholeKey | an index in whole
	stems []string
	stem  map[string]uint32
	whole []string
}

// wholeKey marks an entry of Stored.order that is kept whole.
const wholeKey = 1 << 63

// storedStrings is how many keys Stored's readers get as strings made
// once (at most a few MB); past it each key is made when it is read.
const storedStrings = 1 << 16

// Add records that key was stored.
func (k *Stored) Add(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.seen.add(key) {
		return
	}
	stem, i, ok := splitKey(key)
	if !ok {
		k.order = append(k.order, wholeKey|uint64(len(k.whole)))
		k.whole = append(k.whole, key)
		return
	}
	s, had := k.stem[stem]
	if !had {
		if k.stem == nil {
			k.stem = map[string]uint32{}
		}
		s = uint32(len(k.stems))
		k.stem[stem] = s
		k.stems = append(k.stems, stem)
	}
	k.order = append(k.order, uint64(s)<<32|uint64(i))
}

// Keys returns the stored keys in the order they were first stored.
func (k *Stored) Keys() []string {
	n, key := k.view()
	out := make([]string, n)
	for j := range out {
		out[j] = key(j)
	}
	return out
}

// view returns how many keys were stored and the j-th of them, as they
// were when it was called: a few as strings made once, more as entries
// each made into its key when read.
func (k *Stored) view() (int, func(j int) string) {
	k.mu.Lock()
	order := append([]uint64(nil), k.order...)
	stems, whole := append([]string(nil), k.stems...), append([]string(nil), k.whole...)
	k.mu.Unlock()
	key := func(j int) string {
		e := order[j]
		if e&wholeKey != 0 {
			return whole[e&^wholeKey]
		}
		return stems[e>>32] + strconv.Itoa(int(e&(1<<32-1)))
	}
	if len(order) > storedStrings {
		return len(order), key
	}
	keys := make([]string, len(order))
	for j := range keys {
		keys[j] = key(j)
	}
	return len(keys), func(j int) string { return keys[j] }
}
