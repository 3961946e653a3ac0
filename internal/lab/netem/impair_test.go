package netem

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/buffer"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
)

// within says whether got is within rel of want (relative).
func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }

// TestGilbertElliottStatistics: over a large seeded sample, the chain's
// loss rate is the model's mean, (P·BadLoss + R·GoodLoss)/(P+R), and with
// a bad state that loses everything and a good one that loses nothing its
// bursts last 1/R packets on average, its gaps 1/P.
func TestGilbertElliottStatistics(t *testing.T) {
	t.Parallel()
	const n = 2_000_000
	for _, g := range []GilbertElliott{
		{P: 0.01, R: 0.3, BadLoss: 1},
		{P: 0.001, R: 0.5, BadLoss: 1},
		{P: 0.05, R: 0.25, BadLoss: 0.8, GoodLoss: 0.01},
		{P: 0.02, R: 1, BadLoss: 1}, // tc's default r: bursts of one
		{GoodLoss: 0.02},            // p = 0: random loss in the good state
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		var s geState
		lost, bursts, prev := 0, 0, false
		for range n {
			l := s.lose(g, rng)
			if l {
				lost++
				if !prev {
					bursts++
				}
			}
			prev = l
		}
		if got := float64(lost) / n; !within(got, g.MeanLoss(), 0.05) {
			t.Errorf("%+v: loss %.4f, want the model's mean %.4f ±5%%", g, got, g.MeanLoss())
		}
		if g.BadLoss == 1 && g.GoodLoss == 0 {
			mean := float64(lost) / float64(bursts)
			if !within(mean, 1/g.R, 0.05) {
				t.Errorf("%+v: mean burst %.2f packets, want 1/r = %.2f ±5%%", g, mean, 1/g.R)
			}
			if gap := float64(n-lost) / float64(bursts); !within(gap, 1/g.P, 0.05) {
				t.Errorf("%+v: mean gap %.1f packets, want 1/p = %.1f ±5%%", g, gap, 1/g.P)
			}
		}
	}
}

// TestGilbertElliottIsBursty: at the same mean loss, the chain's losses
// cluster (a loss is followed by another far more often than the mean
// loss), random loss's do not.
func TestGilbertElliottIsBursty(t *testing.T) {
	t.Parallel()
	g := GilbertElliott{P: 0.01, R: 0.3, BadLoss: 1}
	for _, tc := range []struct {
		name   string
		bursty bool
	}{{"gemodel", true}, {"random", false}} {
		d := newDirection(Path{Bursty: g}, 0, 1500, 7, false)
		if !tc.bursty {
			d = newDirection(Path{Loss: g.MeanLoss()}, 0, 1500, 7, false)
		}
		prev, pairs, lost := false, 0, 0
		const n = 1_000_000
		for range n {
			l := d.lose()
			if l && prev {
				pairs++
			}
			if l {
				lost++
			}
			prev = l
		}
		after := float64(pairs) / float64(lost) // P(loss | loss before)
		if tc.bursty && !within(after, 1-g.R, 0.05) || !tc.bursty && !within(after, g.MeanLoss(), 0.15) {
			t.Errorf("%s: P(loss after a loss) = %.3f (mean loss %.4f)", tc.name, after, float64(lost)/n)
		}
	}
}

// sent counts what a direction admitted, delivering nothing: its FIFO is
// read as it stands.
func sendN(d *direction, n int) {
	for i := range n {
		d.send(100, 0, func() buffer.Buffer {
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], uint32(i))
			return buffer.MakeWithData(b[:])
		})
	}
}

// TestReorderAndDuplicateShares: over a large seeded sample, the share of
// packets sent ahead of the delay is Reorder.Share (with and without
// correlation, which makes jumps come in runs, not more of them), copies
// are Duplicate of the packets sent, a reordered packet arrives as it
// departs and a delayed one Delay later, and the wire stays ordered by
// arrival.
func TestReorderAndDuplicateShares(t *testing.T) {
	t.Parallel()
	n := 200_000
	if raceDetector {
		n = 50_000 // the race detector slows each send tenfold
	}
	for _, p := range []Path{
		{Delay: 20 * time.Millisecond, Reorder: Reorder{Share: 0.25}},
		{Delay: 20 * time.Millisecond, Reorder: Reorder{Share: 0.25, Correlation: 0.5}},
		{Delay: 20 * time.Millisecond, Reorder: Reorder{Share: 0.05}, Rate: 1e9, Queue: 1 << 30},
		{Delay: 20 * time.Millisecond, Duplicate: 0.01},
		{Delay: 20 * time.Millisecond, Duplicate: 0.2, Loss: 0.1},
	} {
		d := newDirection(p, 2*p.Delay, 1500, 11, false)
		sendN(d, n)
		st := d.stats()
		admitted := float64(d.n)
		if got := float64(st.Reordered) / admitted; p.Reorder.Share > 0 && !within(got, p.Reorder.Share, 0.03) {
			t.Errorf("%+v: %.4f reordered, want %.4f ±3%%", p, got, p.Reorder.Share)
		}
		if p.Reorder.Share == 0 && st.Reordered != 0 {
			t.Errorf("%+v: %d reordered, want none", p, st.Reordered)
		}
		// A duplicate is drawn per packet sent, then each copy's loss (a
		// lost original leaves its copy): copies Duplicate·(1-Loss)² of n.
		wantDup := p.Duplicate * (1 - p.Loss) * (1 - p.Loss)
		if got := float64(st.Duplicated) / float64(n); p.Duplicate > 0 && !within(got, wantDup, 0.05) {
			t.Errorf("%+v: %.4f duplicated, want %.4f ±5%%", p, got, wantDup)
		}
		// A duplicated packet whose original is lost counts as neither.
		if want := float64(n)*(1+p.Duplicate-p.Duplicate*p.Loss) - float64(st.LossDrops); !within(admitted, want, 0.01) {
			t.Errorf("%+v: %v packets on the wire, want %v ±1%%", p, admitted, want)
		}
		prev := int64(-1)
		for i := range d.n {
			pk := d.fifo[(d.head+i)%len(d.fifo)]
			if pk.at < prev {
				t.Fatalf("%+v: packet %d due at %d before the one ahead (%d)", p, i, pk.at, prev)
			}
			prev = pk.at
		}
		d.drain()
	}
}

// TestReorderOnTheWire: with a delay and reordering, the packets arrive,
// every one, some ahead of packets sent before them, each reordered one
// well inside the delay (the wire wakes for a new head rather than
// sleeping until the old one), on both timers.
func TestReorderOnTheWire(t *testing.T) {
	t.Parallel()
	for _, precise := range []bool{true, false} {
		const n, delay = 400, 50 * time.Millisecond
		d := newDirection(Path{Delay: delay, Reorder: Reorder{Share: 0.25}, Duplicate: 0.05}, 2*delay, 1500, 3, precise)
		var mu sync.Mutex
		var order []uint32
		var early []time.Duration
		start := time.Now()
		d.out = func(_ tcpip.NetworkProtocolNumber, b buffer.Buffer) {
			mu.Lock()
			order = append(order, binary.BigEndian.Uint32(b.Flatten()))
			if e := time.Since(start); e < delay/2 {
				early = append(early, e)
			}
			mu.Unlock()
			b.Release()
		}
		go d.run()
		sendN(d, n)
		deadline := time.Now().Add(5 * time.Second)
		for d.stats().Packets < n+d.stats().Duplicated && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		d.stop()
		st := d.stats()
		mu.Lock()
		inversions, seen := 0, map[uint32]int{}
		for i, v := range order {
			seen[v]++
			if i > 0 && v < order[i-1] {
				inversions++
			}
		}
		mu.Unlock()
		if len(seen) != n || st.Packets != n+st.Duplicated {
			t.Errorf("precise %v: %d distinct packets, %d delivered, %d copies: want all %d and their copies", precise, len(seen), st.Packets, st.Duplicated, n)
		}
		if st.Reordered == 0 || inversions == 0 || int64(len(early)) < st.Reordered/2 {
			t.Errorf("precise %v: %d reordered, %d arrived out of order, %d within half the delay", precise, st.Reordered, inversions, len(early))
		}
	}
}

// TestImpairmentChecks: the wire refuses what netem would: reordering
// without a delay, two loss models at once, a chain stuck in its bad
// state, shares outside 0-100%.
func TestImpairmentChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p  Path
		ok bool
	}{
		{Path{Delay: time.Millisecond, Reorder: Reorder{Share: 0.25, Correlation: 0.5}}, true},
		{Path{Reorder: Reorder{Share: 0.25}}, false},
		{Path{Delay: time.Millisecond, Reorder: Reorder{Share: 1.5}}, false},
		{Path{Delay: time.Millisecond, Reorder: Reorder{Share: 0.5, Correlation: 1}}, false},
		{Path{Loss: 0.01, Bursty: GilbertElliott{P: 0.01, R: 0.3, BadLoss: 1}}, false},
		{Path{Bursty: GilbertElliott{P: 0.01, BadLoss: 1}}, false},
		{Path{Bursty: GilbertElliott{P: 0.01, R: 0.3, BadLoss: 1}}, true},
		{Path{Duplicate: -0.1}, false},
		{Path{Duplicate: 0.01}, true},
	} {
		if err := tc.p.Check(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v, want ok %v", tc.p, err, tc.ok)
		}
	}
}

// TestCorrelatedDraw: the correlated draw keeps its share and repeats the
// previous outcome as its correlation says: after a hit, another with
// probability rho + (1-rho)·p.
func TestCorrelatedDraw(t *testing.T) {
	t.Parallel()
	const n = 1_000_000
	for _, tc := range []struct{ p, rho float64 }{{0.25, 0}, {0.25, 0.5}, {0.05, 0.9}} {
		rng := rand.New(rand.NewPCG(5, 6))
		var c correlated
		hits, pairs, prev := 0, 0, false
		for range n {
			h := c.next(tc.p, tc.rho, rng)
			if h {
				hits++
				if prev {
					pairs++
				}
			}
			prev = h
		}
		if got := float64(hits) / n; !within(got, tc.p, 0.03) {
			t.Errorf("p %g rho %g: share %.4f", tc.p, tc.rho, got)
		}
		if got, want := float64(pairs)/float64(hits), tc.rho+(1-tc.rho)*tc.p; !within(got, want, 0.03) {
			t.Errorf("p %g rho %g: P(hit after a hit) %.3f, want %.3f", tc.p, tc.rho, got, want)
		}
	}
}

// TestImpairedNetwork: the stacks carry a transfer whole across a wire
// that reorders, duplicates and loses in bursts each way, and the wire
// counts what it did.
func TestImpairedNetwork(t *testing.T) {
	t.Parallel()
	p := Path{Delay: 5 * time.Millisecond, Reorder: Reorder{Share: 0.1}, Duplicate: 0.05,
		Bursty: GilbertElliott{P: 0.005, R: 0.3, BadLoss: 0.5}}
	n, err := New(Config{Up: p, Down: p, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	serve(t, n, 80)
	c, err := n.Dial(t.Context(), 80)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	get(t, c, 1<<20) // fails the test unless every byte arrives
	up, down := n.Stats()
	for name, s := range map[string]Stats{"up": up, "down": down} {
		if s.Reordered == 0 || s.Duplicated == 0 {
			t.Errorf("%s: %+v: want packets reordered and duplicated", name, s)
		}
	}
	if down.LossDrops == 0 {
		t.Errorf("down: %+v: want bursty losses", down)
	}
}
