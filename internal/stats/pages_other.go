//go:build !linux

package stats

// releaseCode is Linux's only.
func releaseCode() int64 { return 0 }
