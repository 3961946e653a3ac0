package document

import "testing"

// TestBusyMisses: a client's miss is busy above BusyShare late packets; a
// row missed busy only when every client that missed it was; the table's
// count (clients) and the error's (rows) follow from that one rule.
func TestBusyMisses(t *testing.T) {
	t.Parallel()
	quiet, busy := BusyShare/2, BusyShare*2
	for _, c := range []struct {
		name          string
		row           CheckRow
		missedBusy    bool
		clientsMarked int
	}{
		{"passed while busy", CheckRow{Pass: true, Late: busy}, false, 0},
		{"raw request only, missed busy", CheckRow{Late: busy}, true, 1},
		{"raw request only, missed quiet", CheckRow{Late: quiet}, false, 0},
		{"one client missed busy, the other passed", CheckRow{Clients: []ClientCheck{{Pass: true, Late: quiet}, {Late: busy}}}, true, 1},
		{"one missed busy, one missed quiet", CheckRow{Clients: []ClientCheck{{Late: busy}, {Late: quiet}}}, false, 1},
		{"both missed busy", CheckRow{Clients: []ClientCheck{{Late: busy}, {Late: busy}}}, true, 2},
	} {
		if got := c.row.MissedBusy(); got != c.missedBusy {
			t.Errorf("%s: MissedBusy %v, want %v", c.name, got, c.missedBusy)
		}
		m := LabCheckMode{Rows: []CheckRow{c.row}}
		if got := m.BusyMisses(); got != c.clientsMarked {
			t.Errorf("%s: %d clients marked busy, want %d", c.name, got, c.clientsMarked)
		}
		want := 0
		if c.missedBusy {
			want = 1
		}
		if got := NewLabCheck([]LabCheckMode{m}, false).MissedBusyRows(); got != want {
			t.Errorf("%s: %d rows missed busy, want %d", c.name, got, want)
		}
	}
}
