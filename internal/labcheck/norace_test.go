//go:build !race

package labcheck

const raceDetector = false
