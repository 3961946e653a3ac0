package stats

import "time"

// ProcessCPU returns the CPU time (user plus system) the whole process has
// used so far, from getrusage(RUSAGE_SELF); ok is false where the platform
// has no such count. A step's client CPU is the difference across the step:
// it includes everything the process did meanwhile (the load's workers, the
// SDK, the tracing, the garbage collector, a progress bar, and the embedded
// lab's servers when they run in the process), which is what a program
// driving the same load would pay.
func ProcessCPU() (cpu time.Duration, ok bool) { return processCPU() }

// ProcessRunWait returns the time the process's threads have spent so far
// runnable but waiting for a CPU that other work held (Linux's schedstat;
// ok is false elsewhere). Across a step, CPU time plus this wait is the
// CPU the process wanted: on a machine shared with other work, a client
// that is short of CPU shows here rather than as CPU time.
func ProcessRunWait() (wait time.Duration, ok bool) { return processRunWait() }

// CPUPerOp is cpu per operation in microseconds; 0 when there was none.
func CPUPerOp(cpu time.Duration, ops int64) float64 {
	if ops <= 0 || cpu <= 0 {
		return 0
	}
	return float64(cpu) / float64(time.Microsecond) / float64(ops)
}

// CPUPerGB is cpu seconds per GB (10^9 bytes) moved; 0 when no byte moved.
func CPUPerGB(cpu time.Duration, bytes int64) float64 {
	if bytes <= 0 || cpu <= 0 {
		return 0
	}
	return cpu.Seconds() / (float64(bytes) / 1e9)
}
