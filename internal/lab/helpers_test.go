package lab

import (
	"context"
	"testing"
	"time"
)

func dur(d time.Duration) *time.Duration { return &d }

func startLab(t *testing.T, cfg Config) *Lab {
	t.Helper()
	l, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func timingTest(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if testing.Short() {
		t.Skip("timing test")
	}
}

func ptr[T any](v T) *T { return &v }
