package twin

import "testing"

// TestServiceClassNearest: a request draws its service time from its
// operation's class nearest in log size (so 100 KiB is nearer 64 KiB than
// 1 MiB), and an operation with no class of its own from GET's.
func TestServiceClassNearest(t *testing.T) {
	t.Parallel()
	one := func(ms float64) []float64 { // every percentile the same: a draw is exact
		p := make([]float64, 101)
		for i := range p {
			p[i] = ms
		}
		return p
	}
	m := &Measured{Service: []ServiceClass{
		{Op: "get", SizeBytes: 1 << 10, PercentilesMs: one(10)},
		{Op: "get", SizeBytes: 64 << 10, PercentilesMs: one(20)},
		{Op: "get", SizeBytes: 1 << 20, PercentilesMs: one(30)},
		{Op: "put", SizeBytes: 1 << 10, PercentilesMs: one(40)},
	}}
	for _, tc := range []struct {
		op     string
		size   int64
		wantMs int64
	}{
		{"get", 0, 10},
		{"get", 1 << 10, 10},
		{"get", 8 << 10, 10}, // 8x either way: a tie goes to the smaller class
		{"get", 16 << 10, 20},
		{"get", 100 << 10, 20},
		{"get", 300 << 10, 30},
		{"get", 1 << 30, 30},
		{"put", 1 << 20, 40},  // put's only class
		{"head", 1 << 20, 30}, // no head class: GET's of that size
	} {
		if got := m.ServiceTime(tc.op, tc.size).Milliseconds(); got != tc.wantMs {
			t.Errorf("%s %d bytes: %d ms, want %d", tc.op, tc.size, got, tc.wantMs)
		}
	}
}
