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

// keyView is a KeySet as it was at one moment: its keys kept whole, then
// its bitmaps' pages in the order of their stems and counters, each page
// with the count of keys before it, so that the j-th key is found without
// making the others.
type keyView struct {
	other  []string
	pages  []keyPage
	before []int // keys in the pages before each page, other included
	n      int
}

type keyPage struct {
	stem string
	base int
	bits [pageBits / 64]uint64
}

// view copies the set (a bit per key), so that the caller may change it
// meanwhile.
func (k *KeySet) view() *keyView {
	v := &keyView{}
	k.mu.Lock()
	for stem, c := range k.stems {
		for n, p := range c.pages {
			v.pages = append(v.pages, keyPage{stem, n * pageBits, *p})
		}
	}
	v.other = make([]string, 0, len(k.other))
	for key := range k.other {
		v.other = append(v.other, key)
	}
	k.mu.Unlock()
	sort.Strings(v.other)
	sort.Slice(v.pages, func(a, b int) bool {
		if v.pages[a].stem != v.pages[b].stem {
			return v.pages[a].stem < v.pages[b].stem
		}
		return v.pages[a].base < v.pages[b].base
	})
	v.n = len(v.other)
	v.before = make([]int, len(v.pages))
	for i, p := range v.pages {
		v.before[i] = v.n
		for _, x := range p.bits {
			v.n += bits.OnesCount64(x)
		}
	}
	return v
}

// key is the j-th key of the view, 0 <= j < v.n.
func (v *keyView) key(j int) string {
	if j < len(v.other) {
		return v.other[j]
	}
	i := sort.Search(len(v.pages), func(i int) bool { return v.before[i] > j }) - 1
	p := &v.pages[i]
	r := j - v.before[i] // the r-th set bit of the page
	for w, x := range p.bits {
		if c := bits.OnesCount64(x); r >= c {
			r -= c
			continue
		}
		for ; r > 0; r-- {
			x &= x - 1 // drop the lowest set bit
		}
		return p.stem + strconv.Itoa(p.base+w*64+bits.TrailingZeros64(x))
	}
	panic("load: keyView.key past its page")
}

// All yields the recorded keys, as they were when it started (a copy of
// the bitmaps, so that the caller may Remove keys meanwhile), making each
// string only when it is yielded.
func (k *KeySet) All() iter.Seq[string] {
	v := k.view()
	return func(yield func(string) bool) {
		for _, key := range v.other {
			if !yield(key) {
				return
			}
		}
		for _, p := range v.pages {
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

// Stored is the keys a write step stored, each once: what the read steps
// after it may read. A key whose upload failed, or was never made because
// the step reached its --duration first, is not in it, so a read step never
// asks for an object that objbench did not write: a not_found there would
// be objbench's bookkeeping, not the storage's. It is a KeySet (a bit per
// key of a stem and counter), so that a long PUT step's record stays
// small; the readers get the keys in the order of their stems and
// counters (keys kept whole first), which for a step's keys is the order
// of its requests.
type Stored struct {
	set KeySet
}

// storedStrings is how many keys Stored's readers get as strings made
// once (at most a few MB); past it each key is made when it is read.
const storedStrings = 1 << 16

// Add records that key was stored.
func (k *Stored) Add(key string) { k.set.Add(key) }

// Keys returns the stored keys.
func (k *Stored) Keys() []string { return k.set.Keys() }

// view returns how many keys were stored and the j-th of them, as they
// were when it was called: a few as strings made once, more each made
// when read.
func (k *Stored) view() (int, func(j int) string) {
	v := k.set.view()
	if v.n > storedStrings {
		return v.n, v.key
	}
	keys := make([]string, 0, v.n)
	for j := range v.n {
		keys = append(keys, v.key(j))
	}
	return len(keys), func(j int) string { return keys[j] }
}
