//go:build !race

package calibrate

const raceDetector = false
