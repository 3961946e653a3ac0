//go:build !race

package timeline_test

const raceDetector = false
