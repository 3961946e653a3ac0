package document

// ProfileRow is one quantity of two profiles side by side: A and B in Unit,
// and whether B is within tolerance of A (lab check: A the profile, B the
// lab).
type ProfileRow struct {
	Quantity string  `json:"quantity"`
	Unit     string  `json:"unit"`
	A        float64 `json:"a"`
	B        float64 `json:"b"`
	// Tolerance is the allowed difference, in Unit (0: not checked).
	Tolerance float64 `json:"tolerance,omitempty"`
	Pass      bool    `json:"pass"`
}

// ProfileComparison is two profiles compared (or a profile against its
// lab, Check), row by row, with the count of rows that failed.
type ProfileComparison struct {
	A      string       `json:"a"`
	B      string       `json:"b"`
	Check  bool         `json:"check"`
	Failed int          `json:"failed"`
	Rows   []ProfileRow `json:"rows"`
}

// ProfileComparisonDocument is the --json output of comparing profiles.
// Its fields are in the order the command has always written them.
type ProfileComparisonDocument struct {
	ProfileComparison ProfileComparison `json:"profile_comparison"`
	Schema            string            `json:"schema"`
}

// NewProfileComparison is the comparison's document, tagged with the
// schema; Failed counts the rows that did not pass.
func NewProfileComparison(a, b string, rows []ProfileRow, check bool) *ProfileComparisonDocument {
	failed := 0
	for _, r := range rows {
		if !r.Pass {
			failed++
		}
	}
	return &ProfileComparisonDocument{ProfileComparison: ProfileComparison{A: a, B: b, Check: check, Failed: failed, Rows: rows}, Schema: Schema}
}
