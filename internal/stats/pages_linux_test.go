package stats

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFile is the process's file-backed resident memory (RssFile), in bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "RssFile:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

func TestReleaseCode(t *testing.T) {
	before := rssFile(t)
	released := releaseCode()
	after := rssFile(t)
	t.Logf("RssFile %d KiB before, %d KiB after; released %d KiB", before>>10, after>>10, released>>10)
	if released <= 0 {
		t.Fatalf("released %d bytes, want the binary's resident code", released)
	}
	if after >= before {
		t.Fatalf("RssFile %d bytes after releasing, %d before: nothing given back", after, before)
	}
}
