package document

// Mixed is the workload whose step is split into one result per op.
const Mixed = "mixed"

// Steps groups results by the measured step they come from, as index
// ranges [from, to): a mixed step's results (one per op, workload "mixed",
// adjacent, each op once, with one strategy and concurrency) share one step, its wall
// time and its rate; any other result is a step of its own. Adding the
// wall times or rates of results that share a step counts that step once
// per op.
func Steps(rs []Result) [][2]int {
	var out [][2]int
	for i := 0; i < len(rs); {
		j := i + 1
		seen := map[string]bool{rs[i].Op: true}
		for j < len(rs) && rs[i].Workload == Mixed && sameStep(rs[i], rs[j]) && !seen[rs[j].Op] {
			seen[rs[j].Op] = true
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

func sameStep(a, b Result) bool {
	return b.Workload == Mixed && a.Strategy == b.Strategy && a.Concurrency == b.Concurrency
}

// StepsWallS is the wall time of the steps results come from: each step
// counted once (the longest of its results' wall times: a mixed step's
// results share one, a merged one's may differ by how the shards' windows
// fell).
func StepsWallS(rs []Result) float64 {
	var wall float64
	for _, s := range Steps(rs) {
		w := 0.0
		for _, r := range rs[s[0]:s[1]] {
			w = max(w, r.WallS)
		}
		wall += w
	}
	return wall
}
