// Package units reads and prints the sizes and counts users type: 16KiB,
// 1MiB, 1MB, 1,5,10,20.
package units

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30},
	{"B", 1},
}

// ParseSize reads a human size: "0", "512", "16KiB", "1MiB", "1MB" (10^6),
// "1.5MiB". Binary units (KiB, MiB, GiB; also K, M, G) are powers of 1024,
// decimal ones (KB, MB, GB) powers of 1000.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	if t == "" {
		return 0, fmt.Errorf("empty size")
	}
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			mult = u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v != v {
		return 0, fmt.Errorf("bad size %q: use a number with an optional unit, e.g. 0, 1KiB, 256KiB, 32MiB, 1MB", s)
	}
	n := v * float64(mult)
	if n > 5*(1<<40) {
		return 0, fmt.Errorf("bad size %q: larger than 5 TiB, the largest object a provider stores", s)
	}
	return int64(n), nil
}

// ParseSizes reads a comma-separated list of sizes.
func ParseSizes(s string) ([]int64, error) {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			return nil, fmt.Errorf("empty item in %q: separate sizes by single commas, e.g. 1KiB,1MiB", s)
		}
		n, err := ParseSize(part)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes in %q", s)
	}
	return out, nil
}

// ParseInts reads a comma-separated list of positive integers.
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty item in %q: separate counts by single commas, e.g. 1,5,10,20", s)
		}
		n, err := strconv.Atoi(part)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad count %q in %q: use positive integers, e.g. 1,5,10,20", part, s)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no counts in %q", s)
	}
	return out, nil
}

// FormatSize prints a size the way ParseSize reads it: 0B, 1KiB, 32MiB, 1500B.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// FormatSizes is the comma-separated list ParseSizes reads back.
func FormatSizes(s []int64) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = FormatSize(n)
	}
	return strings.Join(parts, ",")
}

// FormatInts is the comma-separated list ParseInts reads back.
func FormatInts(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// FormatCounts is "a 3, b 1": names by count, the largest first (ties by
// name), "" for none.
func FormatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
