//go:build race

package timeline_test

// raceDetector is true in -race builds, whose slowed CPU distorts timing:
// timing tests skip there and run in scripts/test's timing step instead.
const raceDetector = true
