//go:build !unix

package stats

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
