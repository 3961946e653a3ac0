package document

import "testing"

// TestMissedBusy: a row's miss is the machine's only when every client
// that missed it was measured with over 5% of the wire's packets late.
func TestMissedBusy(t *testing.T) {
	t.Parallel()
	c := func(pass bool, late float64) ClientCheck { return ClientCheck{Pass: pass, Late: late} }
	for _, tc := range []struct {
		name string
		row  CheckRow
		want bool
	}{
		{"passed, busy", CheckRow{Pass: true, Late: 0.5}, false},
		{"TCP row missed, busy", CheckRow{Late: 0.06}, true},
		{"TCP row missed, quiet", CheckRow{Late: 0.05}, false},
		{"every miss busy", CheckRow{Late: 0.2, Clients: []ClientCheck{c(false, 0.2), c(true, 0), c(false, 0.1)}}, true},
		{"one miss quiet", CheckRow{Late: 0.2, Clients: []ClientCheck{c(false, 0.2), c(false, 0.01)}}, false},
	} {
		if got := tc.row.MissedBusy(); got != tc.want {
			t.Errorf("%s: MissedBusy %v, want %v", tc.name, got, tc.want)
		}
	}
}
