//go:build race

package main

// raceEnabled: the race detector slows the CPU several times over, so the
// timing checks run in scripts/test's timing step, without it.
const raceEnabled = true
