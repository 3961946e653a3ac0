package netem

import (
	"testing"
	"time"
)

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

// TestWireFidelity: a meter reads each way since it started; a wire is
// busy past 5% late, and imprecise past 10% tardy only where tardiness
// moves TCP: behind at most 16 packets where a packet crosses the
// bottleneck in at most 0.4 ms.
func TestWireFidelity(t *testing.T) {
	t.Parallel()
	var up, down Stats
	m := NewLateMeter(func() (Stats, Stats) { return up, down })
	up = Stats{Packets: 40, Late: 1, Tardy: 9}
	down = Stats{Packets: 60, Late: 5, Tardy: 2, QueueDrops: 3}
	u, d := m.Since()
	if both := u.Add(d); both.Packets != 100 || both.QueueDrops != 3 || both.LateShare() != 0.06 || both.TardyShare() != 0.11 || !both.Busy() {
		t.Errorf("since: %+v, late %v, tardy %v, busy %v; want 100 packets, 0.06 late (busy), 0.11 tardy", both, both.LateShare(), both.TardyShare(), both.Busy())
	}
	if s := (Stats{Packets: 100, Late: 5}); s.Busy() {
		t.Error("5% late is busy; want over 5%")
	}
	if _, d := NewLateMeter(nil).Since(); d != (Stats{}) {
		t.Errorf("no wire: %+v", d)
	}
	tardy := Stats{Packets: 100, Tardy: 11}
	for _, tc := range []struct {
		name string
		p    Path
		mtu  int
		want bool
	}{
		{"8 packets at 200 Mbit", Path{Rate: 200e6, Queue: 12000}, 0, true},
		{"16 packets at 50 Mbit", Path{Rate: 50e6, Queue: 16 * 1500}, 0, true},
		{"17 packets at 50 Mbit", Path{Rate: 50e6, Queue: 17 * 1500}, 0, false},
		{"8 packets at 16 Mbit: 0.75 ms a packet", Path{Rate: 16e6, Queue: 12000}, 0, false},
		{"8 packets at 30 Mbit: 0.4 ms", Path{Rate: 30e6, Queue: 12000}, 0, true},
		{"a quarter BDP at 200 Mbit", Path{Rate: 200e6, Queue: 250000}, 0, false},
		{"no cap", Path{Queue: 12000}, 0, false},
		{"the default queue", Path{Rate: 200e6}, 0, false},
		{"8 small packets at 10 Mbit", Path{Rate: 10e6, Queue: 8 * 500}, 500, true},
	} {
		c := Config{Down: tc.p, MTU: tc.mtu}
		if got := c.TardyMatters(); got != tc.want {
			t.Errorf("%s: tardiness matters %v, want %v", tc.name, got, tc.want)
		}
		if got := c.Imprecise(tardy); got != tc.want {
			t.Errorf("%s, 11%% tardy: imprecise %v, want %v", tc.name, got, tc.want)
		}
		if c.Imprecise(Stats{Packets: 100, Tardy: 10}) {
			t.Errorf("%s, 10%% tardy: imprecise; want over 10%%", tc.name)
		}
	}
	if got := (Config{Up: Path{Delay: 50 * time.Millisecond}, Down: Path{Delay: 50 * time.Millisecond}}).LateAfter(); got != 5*time.Millisecond {
		t.Errorf("late after %v on a 100 ms round trip, want 5ms", got)
	}
}
