package results

import (
	"os"
	"strconv"
	"strings"
)

// canCheckProcesses: /proc says whether a process exists.
const canCheckProcesses = true

// processStamp is pid's boot and start time ("" when unknown): a process
// that reuses the id after pid ended has another.
func processStamp(pid int) string {
	s, _ := processAlive(pid)
	return s
}

// processAlive reads /proc/PID/stat: a process that is not there, or a
// zombie, has ended.
func processAlive(pid int) (stamp string, alive bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", !os.IsNotExist(err)
	}
	// The command name (field 2) may hold spaces: fields count from its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", true
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", true
	}
	if f[0] == "Z" || f[0] == "X" {
		return "", false
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(boot)) + "/" + f[19], true // field 22: start time in clock ticks since boot
}
