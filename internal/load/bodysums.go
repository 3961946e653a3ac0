package load

import (
	"hash/crc32"
	"sync"
	"sync/atomic"
)

// A body's bytes depend on its size alone, so a run reads the same blocks
// over and over (every object of a size, every point of a range sweep).
// The first read of a whole block is compared with the generator word by
// word (about 9 GB/s a core); if equal, the CRC-32C of the bytes that
// arrived is kept, and later reads of that block are checked by their
// CRC-32C alone (25-30 GB/s with the CPU's instruction). A CRC-32C catches
// every error of up to 32 bits in a row (the lab's corrupt fault flips one
// byte) and misses other damage once in 2^32 blocks; a block whose CRC
// differs is compared word by word, so that the error still names the
// first byte that differs.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// blockSums are one body's blocks' CRC-32C, each 1<<32 | crc once known
// (0 not yet).
type blockSums []atomic.Uint64

// sumsCache holds the blockSums of bodies of at least minBody bytes, up to
// budget bytes of tables in all: 8 bytes per 64 KiB block, 128 KiB for a
// 1 GiB body, 12.5 MiB for 100 GiB. Bodies beyond the budget are checked
// word by word only.
type sumsCache struct {
	minBody, budget int64
	mu              sync.Mutex
	used            int64
	bySize          map[int64]blockSums
}

// bodySums is the process's cache: bodies from 1 MiB (below, a table is
// not worth its lookup), 16 MiB of tables.
var bodySums = &sumsCache{minBody: 1 << 20, budget: 16 << 20}

// get returns the table of bodies of size bytes, made on first use, or nil.
func (c *sumsCache) get(size int64) blockSums {
	if size < c.minBody {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.bySize[size]; ok {
		return t
	}
	n := (size + bodyBlock - 1) / bodyBlock
	if c.used+8*n > c.budget {
		return nil
	}
	if c.bySize == nil {
		c.bySize = map[int64]blockSums{}
	}
	t := make(blockSums, n)
	c.bySize[size] = t
	c.used += 8 * n
	return t
}

// mismatchSums is the index of the first byte of p that is not the body's
// byte at off (bytes past the body's end never are), or -1; with sums, a
// whole block whose CRC-32C is known is checked by it, and one that
// compares equal teaches its CRC-32C.
func (b Body) mismatchSums(sums blockSums, p []byte, off int64) int {
	if rest := b.size - off; int64(len(p)) > rest {
		if rest <= 0 {
			return 0
		}
		if at := b.mismatchSums(sums, p[:rest], off); at >= 0 {
			return at
		}
		return int(rest)
	}
	for done := 0; done < len(p); {
		pos := off + int64(done)
		i, in := pos/bodyBlock, int(pos%bodyBlock)
		blockLen := int(min(bodyBlock, b.size-i*bodyBlock))
		n := min(len(p)-done, blockLen-in)
		seg := p[done : done+n]
		if sums != nil && in == 0 && n == blockLen { // a whole block in hand
			e := &sums[i]
			known := e.Load()
			if known != 0 && crc32.Update(0, castagnoli, seg) == uint32(known) {
				done += n
				continue
			}
			if at := b.mismatchBlock(i, 0, seg); at >= 0 {
				return done + at
			}
			if known == 0 {
				e.Store(1<<32 | uint64(crc32.Update(0, castagnoli, seg)))
			}
		} else if at := b.mismatchBlock(i, in, seg); at >= 0 {
			return done + at
		}
		done += n
	}
	return -1
}
