package results

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"2026-11-22", time.Date(2026, 11, 22, 0, 0, 0, 0, time.Local), false},
		{"2026-11-22T15:04", time.Date(2026, 11, 22, 15, 4, 0, 0, time.Local), false},
		{"2026-11-22T15:04:05Z", time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC), false},
		{"yesterday", time.Time{}, true},
		{"22/11/2026", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in)
		if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
