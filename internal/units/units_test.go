package units

import (
	"slices"
	"testing"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"0", 0, false}, {"512", 512, false}, {"16KiB", 16 << 10, false}, {"1MiB", 1 << 20, false},
		{"1MB", 1_000_000, false}, {"1.5MiB", 3 << 19, false}, {"32mib", 32 << 20, false}, {"2K", 2048, false},
		{"1KB", 1000, false}, {"7B", 7, false}, {"", 0, true}, {"12XB", 0, true}, {"-1", 0, true}, {"abc", 0, true}, {"10TiB", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v", tc.in, got, err)
		}
	}
	for _, n := range []int64{0, 1, 1024, 16 << 10, 32 << 20, 1500} {
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Errorf("FormatSize(%d) = %q does not parse back: %d %v", n, FormatSize(n), back, err)
		}
	}
}

func TestFormatListsReadBack(t *testing.T) {
	t.Parallel()
	sizes := []int64{0, 1024, 7 << 10, 1 << 20, 32 << 20}
	s := FormatSizes(sizes)
	if s != "0B,1KiB,7KiB,1MiB,32MiB" {
		t.Errorf("FormatSizes: %q", s)
	}
	if back, err := ParseSizes(s); err != nil || !slices.Equal(back, sizes) {
		t.Errorf("ParseSizes(%q) = %v, %v", s, back, err)
	}
	ints := []int{1, 5, 10, 20}
	if s := FormatInts(ints); s != "1,5,10,20" {
		t.Errorf("FormatInts: %q", s)
	}
}

func TestFormatCounts(t *testing.T) {
	for _, tt := range []struct {
		m    map[string]int
		want string
	}{
		{nil, ""},
		{map[string]int{"b": 1, "a": 3}, "a 3, b 1"},
		{map[string]int{"b": 2, "a": 2, "c": 5}, "c 5, a 2, b 2"},
	} {
		if got := FormatCounts(tt.m); got != tt.want {
			t.Errorf("FormatCounts(%v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}
