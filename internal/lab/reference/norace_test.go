//go:build !race

package reference

const raceDetector = false
