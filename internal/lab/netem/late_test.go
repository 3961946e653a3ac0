package netem

import "testing"

// TestLateMeter: the share counts only what was delivered after the meter
// started, both directions together; no wire, or nothing delivered, is 0.
func TestLateMeter(t *testing.T) {
	t.Parallel()
	var up, down Stats
	stats := func() (Stats, Stats) { return up, down }
	up = Stats{Packets: 100, Late: 50} // before the meter: not counted
	m := NewLateMeter(stats)
	if got := m.Share(); got != 0 {
		t.Errorf("nothing delivered yet: share %v, want 0", got)
	}
	up.Packets, up.Late = 130, 53   // 30 up, 3 late
	down.Packets, down.Late = 70, 7 // 70 down, 7 late
	if got, want := m.Share(), 0.10; got != want {
		t.Errorf("share %v, want %v (10 late of 100)", got, want)
	}
	if got := NewLateMeter(nil).Share(); got != 0 {
		t.Errorf("no wire: share %v, want 0", got)
	}
}
