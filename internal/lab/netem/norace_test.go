//go:build !race

package netem

const raceDetector = false
