//go:build !race

package lab

const raceDetector = false
