package stats

import (
	"runtime"
	"testing"
	"time"
)

func TestProcessCPUGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no getrusage")
	}
	c0, ok := ProcessCPU()
	if !ok {
		t.Fatal("ProcessCPU not available on a unix system")
	}
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := range 1_000_000 {
			x += i ^ x
		}
		if c, _ := ProcessCPU(); c-c0 >= 20*time.Millisecond {
			return
		}
	}
	t.Fatalf("ProcessCPU did not grow by 20ms of busy work in 10s (x=%d)", x)
}

func TestCPUPerOpAndGB(t *testing.T) {
	for _, tc := range []struct {
		cpu          time.Duration
		ops, bytes   int64
		perOp, perGB float64
	}{
		{cpu: time.Second, ops: 1000, bytes: 1e9, perOp: 1000, perGB: 1},
		{cpu: 150 * time.Millisecond, ops: 3, bytes: 3 * 32 << 20, perOp: 50000, perGB: 0.15 / (3 * 32 << 20 / 1e9)},
		{cpu: time.Second, ops: 0, bytes: 0, perOp: 0, perGB: 0},
		{cpu: 0, ops: 10, bytes: 10, perOp: 0, perGB: 0},
		{cpu: -time.Second, ops: 10, bytes: 10, perOp: 0, perGB: 0},
	} {
		if got := CPUPerOp(tc.cpu, tc.ops); got != tc.perOp {
			t.Errorf("CPUPerOp(%v, %d) = %v, want %v", tc.cpu, tc.ops, got, tc.perOp)
		}
		if got := CPUPerGB(tc.cpu, tc.bytes); got != tc.perGB {
			t.Errorf("CPUPerGB(%v, %d) = %v, want %v", tc.cpu, tc.bytes, got, tc.perGB)
		}
	}
}
