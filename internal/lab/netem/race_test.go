//go:build race

package netem

// raceDetector is true in -race builds, whose slowed CPU distorts timing.
const raceDetector = true
