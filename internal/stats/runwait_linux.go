package stats

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// processRunWait sums, over the process's threads, the time each spent
// runnable but waiting for a CPU (the second field of Linux's
// /proc/self/task/TID/schedstat, kept when the kernel has schedstats).
func processRunWait() (time.Duration, bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, false
	}
	var sum int64
	ok := false
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited meanwhile
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			continue
		}
		n, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			continue
		}
		sum, ok = sum+n, true
	}
	return time.Duration(sum), ok
}
