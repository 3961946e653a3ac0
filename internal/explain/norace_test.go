//go:build !race

package explain

const raceDetector = false
