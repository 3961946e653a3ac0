package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func normal(rng *rand.Rand, n int, mean, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mean + sd*rng.NormFloat64()
	}
	return out
}

func TestBootstrapAndMannWhitney(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name        string
		a, b        []float64
		significant bool
	}{
		{"same distribution", normal(rng, 400, 100, 10), normal(rng, 400, 100, 10), false},
		{"b slower by 10%", normal(rng, 400, 100, 10), normal(rng, 400, 110, 10), true},
		{"b faster by 20%", normal(rng, 400, 100, 10), normal(rng, 400, 80, 10), true},
	}
	for _, tc := range tests {
		c := BootstrapQuantile(tc.a, tc.b, 0.5, 500, rand.New(rand.NewPCG(3, 4)))
		p := MannWhitney(tc.a, tc.b)
		if c.Significant() != tc.significant || (p < 0.01) != tc.significant {
			t.Errorf("%s: delta %.2f [%.2f, %.2f] p=%.3g; want significant=%v", tc.name, c.Delta, c.Lo, c.Hi, p, tc.significant)
		}
		if c.Lo > c.Delta || c.Hi < c.Delta {
			t.Errorf("%s: interval [%.2f, %.2f] misses its estimate %.2f", tc.name, c.Lo, c.Hi, c.Delta)
		}
	}
	if p := MannWhitney([]float64{1, 1, 1}, []float64{1, 1, 1}); p != 1 {
		t.Errorf("all ties: p = %v", p)
	}
}

func TestLinearFit(t *testing.T) {
	t.Parallel()
	a, b, ok := LinearFit([]float64{1, 2, 3, 4}, []float64{12, 14, 16, 18})
	if !ok || math.Abs(a-10) > 1e-9 || math.Abs(b-2) > 1e-9 {
		t.Errorf("fit %v %v %v", a, b, ok)
	}
	if _, _, ok := LinearFit([]float64{1}, []float64{1}); ok {
		t.Error("one point fitted")
	}
}

func TestHistogramsRoundTrip(t *testing.T) {
	t.Parallel()
	r := NewRecorder()
	for i := 1; i <= 1000; i++ {
		s := sample(i, time.Duration(i)*time.Millisecond, time.Duration(i)*time.Millisecond, true)
		r.Add(&s)
	}
	enc, err := r.Histograms()
	if err != nil {
		t.Fatal(err)
	}
	h, err := DecodeHistogram(enc["ttfb"])
	if err != nil || h.Count() != 1000 {
		t.Fatalf("decoded %v, %v", h, err)
	}
	vals := h.Values(10_000)
	if len(vals) != 1000 || math.Abs(quantile(sortedCopy(vals), 0.5)-500) > 5 {
		t.Errorf("%d values, median %v", len(vals), quantile(sortedCopy(vals), 0.5))
	}
	drawn := h.Sample(rand.New(rand.NewPCG(1, 1)), 2000)
	if m := quantile(sortedCopy(drawn), 0.5); math.Abs(m-500) > 50 {
		t.Errorf("sampled median %v", m)
	}
}
func TestReservoirBounded(t *testing.T) {
	t.Parallel()
	r := NewReservoir(100)
	for i := range 10_000 {
		s := sample(i, time.Millisecond, time.Millisecond, true)
		r.Add(i%3, &s)
	}
	kept, seen := keptOf(r)
	if len(kept) != 100 || seen != 10_000 {
		t.Errorf("kept %d of %d", len(kept), seen)
	}
	late := 0
	for _, k := range kept {
		if k.Seq >= 5000 {
			late++
		}
	}
	if late < 25 || late > 75 { // uniform: about half from the second half
		t.Errorf("%d of 100 kept from the second half: not uniform", late)
	}
	if NewReservoir(0).Len() != 0 {
		t.Error("cap 0 kept samples")
	}
}

func TestReservoirMerge(t *testing.T) {
	t.Parallel()
	// Worker a saw 9,000 samples, b 1,000: a merged subset of 1,000 holds
	// about 900 of a's, and b's are marked with the step merged.
	run := NewReservoir(1000)
	a, b := NewReservoir(1000), NewReservoir(1000)
	for i := range 9000 {
		s := sample(i, time.Millisecond, time.Millisecond, true)
		a.Add(0, &s)
	}
	for i := range 1000 {
		s := sample(100_000+i, time.Millisecond, time.Millisecond, true)
		b.Add(0, &s)
	}
	run.Merge(a, 1)
	run.Merge(b, 2)
	kept, seen := keptOf(run)
	if len(kept) != 1000 || seen != 10_000 {
		t.Fatalf("kept %d of %d, want 1000 of 10000", len(kept), seen)
	}
	fromA := 0
	for _, k := range kept {
		if k.Seq < 100_000 {
			fromA++
			if k.Step != 1 {
				t.Fatalf("a sample of step %d, want 1", k.Step)
			}
		} else if k.Step != 2 {
			t.Fatalf("b sample of step %d, want 2", k.Step)
		}
	}
	if fromA < 850 || fromA > 950 {
		t.Errorf("%d of 1000 from the worker that saw 90%%: not proportional", fromA)
	}
	empty := NewReservoir(0)
	empty.Merge(a, 1)
	if k, _ := keptOf(empty); len(k) != 0 {
		t.Error("cap 0 kept merged samples")
	}
}

func TestReservoirSplitGather(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		seen         []int
		wantMin, max int
	}{
		// Equal workers: the 1/16 slack of the windows covers their share.
		{"equal", []int{25_000, 25_000, 25_000, 25_000}, 10_000, 10_000},
		// A worker that saw 60% kept 2,657 of its 6,000: the subset
		// shrinks to (2,657 - 3 sd)/0.6 = 4,170, every worker in proportion.
		{"skewed", []int{60_000, 10_000, 10_000, 20_000}, 4170, 4170},
		// Fewer samples than the capacity: all kept.
		{"few", []int{100, 0, 50, 10}, 160, 160},
	}
	for _, tt := range tests {
		rs := Split(10_000, 4)
		arena := rs[0].arena
		if len(rs) != 4 || rs[3].Cap() != 2657 || len(arena) != 4*2657 {
			t.Fatalf("split: %d reservoirs of cap %d, array %d", len(rs), rs[3].Cap(), len(arena))
		}
		seq, total := 0, 0
		for w, n := range tt.seen {
			for range n {
				s := sample(seq, time.Millisecond, time.Millisecond, true)
				s.Worker = w
				rs[w].Add(10+w, &s)
				seq++
			}
			total += n
		}
		g := Gather(rs, 10_000)
		kept, seen := keptOf(g)
		if len(kept) < tt.wantMin-1 || len(kept) > tt.max || seen != int64(total) {
			t.Errorf("%s: kept %d of %d, want %d of %d", tt.name, len(kept), seen, tt.wantMin, total)
			continue
		}
		if &g.kept[0] != &arena[0] {
			t.Errorf("%s: gathered samples moved out of the workers' array", tt.name)
		}
		per := make([]int, 4)
		uniq := map[int]bool{}
		for _, k := range kept {
			per[k.Worker]++
			uniq[k.Seq] = true
			if k.Step != 10+k.Worker {
				t.Fatalf("%s: worker %d sample of step %d, want %d", tt.name, k.Worker, k.Step, 10+k.Worker)
			}
		}
		if len(uniq) != len(kept) {
			t.Errorf("%s: %d distinct samples of %d kept", tt.name, len(uniq), len(kept))
		}
		for w, n := range tt.seen { // in proportion to what each saw (±5 sd)
			want := float64(len(kept)) * float64(n) / float64(total)
			if sd := math.Sqrt(want); math.Abs(float64(per[w])-want) > 5*sd+1 {
				t.Errorf("%s: worker %d gave %d, want about %.0f (kept per worker %v)", tt.name, w, per[w], want, per)
			}
		}
	}
	// An empty reservoir adopts the merged one's array: no copy.
	rs := Split(100, 2)
	arena := rs[0].arena
	for i := range 500 {
		s := sample(i, time.Millisecond, time.Millisecond, true)
		rs[i%2].Add(0, &s)
	}
	g := Gather(rs, 100)
	n := g.Len()
	run := NewReservoir(100)
	run.Merge(g, 3)
	if k := run.kept; n == 0 || len(k) != n || &k[0] != &arena[0] || run.At(0).Step != 3 {
		t.Errorf("merge into an empty reservoir copied or did not mark (%d kept)", len(k))
	}
}

// keptOf returns r's samples unpacked, and how many it was offered.
func keptOf(r *Reservoir) ([]Kept, int64) {
	return slices.Collect(r.All()), r.Seen()
}
