//go:build !race

package realpath

const raceDetector = false
