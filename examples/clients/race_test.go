//go:build race

package clients

// raceDetector is true in -race builds: the comparison's times would be
// distorted by the other packages' race-slowed tests sharing the CPU, so it
// runs in scripts/test's timing step instead.
const raceDetector = true
