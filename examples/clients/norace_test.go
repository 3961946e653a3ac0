//go:build !race

package clients

const raceDetector = false
