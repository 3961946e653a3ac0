package analysis

import (
	"fmt"

	"github.com/objbench/objbench/internal/document"
)

// ExplainRow is one figure of two explained runs side by side: a program
// before (A) and after (B) a change. One run each: a change, no interval.
type ExplainRow struct {
	Metric string  `json:"metric"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	// Change is B/A - 1 (0 when A is 0).
	Change float64 `json:"change"`
	// Verdict is better, worse or same (lower is better; objects moved is
	// neither, only context).
	Verdict string `json:"verdict"`
}

// CompareExplain lines up the figures of two explained runs.
func CompareExplain(a, b *document.ExplainDocument) []ExplainRow {
	ea, eb := a.Explain, b.Explain
	rows := []struct {
		name  string
		a, b  float64
		judge bool
	}{
		{"objects", float64(ea.Objects), float64(eb.Objects), false},
		{"wall_s", ea.WallS, eb.WallS, true},
		{"storage_s", ea.StorageS, eb.StorageS, true},
		{"not_storage_s", ea.NotStorageS, eb.NotStorageS, true},
		{"requests_per_object", ea.RequestsPerObject, eb.RequestsPerObject, true},
		{"connections", float64(ea.Connections), float64(eb.Connections), true},
		{"tls_handshakes", float64(ea.TLSHandshakes), float64(eb.TLSHandshakes), true},
		{"round_trips_per_object", ea.RoundTripsPerObject, eb.RoundTripsPerObject, true},
		{"expect_continue", float64(ea.ExpectContinue), float64(eb.ExpectContinue), true},
		{"cost_usd_per_1000_objects", ea.CostUSDPer1000Objects, eb.CostUSDPer1000Objects, true},
	}
	var out []ExplainRow
	for _, r := range rows {
		x := ExplainRow{Metric: r.name, A: r.a, B: r.b, Verdict: "same"}
		if r.a != 0 {
			x.Change = r.b/r.a - 1
		}
		// Within 5% (or an absolute hair) is the same.
		if d := r.b - r.a; r.judge && abs(d) > 0.05*max(abs(r.a), abs(r.b)) && abs(d) > 1e-9 {
			x.Verdict = "better"
			if d > 0 {
				x.Verdict = "worse"
			}
		}
		if !r.judge {
			x.Verdict = ""
		}
		out = append(out, x)
	}
	return out
}

// explainNote says what was compared when the runs moved different numbers of objects.
func explainNote(a, b *document.ExplainDocument) string {
	if a.Explain.Objects != b.Explain.Objects {
		return fmt.Sprintf("the programs moved %d and %d objects: compare the per-object rows", a.Explain.Objects, b.Explain.Objects)
	}
	return ""
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
