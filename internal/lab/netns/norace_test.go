//go:build !race

package netns

const raceDetector = false
