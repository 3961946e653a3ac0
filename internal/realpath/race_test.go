//go:build race

package realpath

// raceDetector is true under -race: timing tests skip there.
const raceDetector = true
