package stats

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseCode unmaps the resident pages of the binary's read-only
// mappings (its code, read-only data and function tables) and returns
// their size in bytes. Linux maps a file's pages 64 KiB around each
// fault, so the init functions of the binary's ~500 packages (the SDKs,
// the lab, the database) leave 35-40 MB of it resident before the first
// request, most of it code that never runs again. A mapping is released
// only when it is private and none of its pages was ever written (no
// anonymous page in it, as a relocated one would be), so its pages are
// the file's: the kernel faults back from the page cache those the
// measurement runs.
func releaseCode() int64 {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	defer f.Close()
	type span struct {
		start, end uintptr
		rss        int64
		written    bool
	}
	var spans []*span
	var cur *span
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && len(fields) >= 5 {
			// A mapping's header: start-end perms offset dev inode [path].
			cur = nil
			perms := fields[1]
			if len(fields) < 6 || (perms != "r-xp" && perms != "r--p") || strings.Join(fields[5:], " ") != exe {
				continue
			}
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			cur = &span{start: uintptr(start), end: uintptr(end)}
			spans = append(spans, cur)
			continue
		}
		if cur == nil {
			continue
		}
		kb, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "Rss:":
			cur.rss = kb << 10
		case "Anonymous:":
			// A page the process wrote is a private copy; a dirty one
			// is the page cache's (a binary not yet written back).
			cur.written = kb > 0
		}
	}
	if sc.Err() != nil {
		return 0
	}
	var released int64
	for _, s := range spans {
		if s.written {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, s.start, s.end-s.start, syscall.MADV_DONTNEED); e == 0 {
			released += s.rss
		}
	}
	return released
}
