package report

import (
	"testing"

	// -update is defined there: go test ./internal/report/... -update
	// passes it to every package, this one too.
	_ "github.com/objbench/objbench/internal/report/reporttest"
)

func TestFormatSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0B", 1024: "1KiB", 256 << 10: "256KiB", 32 << 20: "32MiB", 1500: "1500B", 1 << 30: "1GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
