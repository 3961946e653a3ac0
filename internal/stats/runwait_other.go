//go:build !linux

package stats

import "time"

func processRunWait() (time.Duration, bool) { return 0, false }
