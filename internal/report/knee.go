package report

import (
	"fmt"
	"strconv"

	"github.com/objbench/objbench/internal/document"
)

// RateStepHeads are the columns of a result's rate steps after the first
// (the step's part of the schedule), as the terminal and the HTML page
// show them (RateStepRow).
var RateStepHeads = []string{"offered/s", "goodput/s", "goodput MB/s", "throttled", "total p50", "total p99", "retries", "errors"}

// RateStepRow is one rate step's cells: its part of the schedule, the rate
// offered, goodput in operations and MB per second, the throttled share of
// answers, the latency of successful operations (ms) and the SDK's
// retries.
func RateStepRow(s document.RateStep) []string {
	lat := func(v float64) string {
		if s.Count == 0 {
			return "-"
		}
		return Num(v)
	}
	return []string{Fixed(s.StartS, 1) + "-" + Fixed(s.EndS, 1) + " s", Rate(s.OfferedOpsPerS), Rate(s.GoodputOpsPerS), Num(s.GoodputMBPerS),
		Fixed(100*s.ThrottledShare, 1) + "%", lat(s.TotalMs.P50), lat(s.TotalMs.P99), strconv.FormatInt(s.Retries, 10),
		strconv.FormatInt(s.Errors, 10)}
}

// Rate prints operations per second: whole from 10 up.
func Rate(v float64) string {
	v = document.Finite(v)
	if v >= 10 || v == 0 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// KneeSentence says where the store pushed back among r's rate steps, the
// goodput it settled at and the hot prefix; or up to what rate it carried
// everything. Empty without rate steps.
func KneeSentence(r document.Result) string {
	k := r.Knee
	if k == nil {
		return ""
	}
	if !k.Found {
		if k.CarriedOpsPerS > 0 {
			return "no knee: the store carried every step up to " + Rate(k.CarriedOpsPerS) + "/s"
		}
		return "no knee: no step was pushed back by throttling"
	}
	s := "knee: the store pushed back at ~" + Rate(k.RateOpsPerS) + "/s"
	if k.Step < len(r.RateSteps) {
		at := r.RateSteps[k.Step]
		s += fmt.Sprintf(" (%s/s offered, %.0f%% throttled)", Rate(at.OfferedOpsPerS), 100*at.ThrottledShare)
	}
	s += "; goodput settled at " + Rate(k.GoodputOpsPerS) + "/s"
	if k.HotPrefix != "" {
		s += "; hot prefix " + k.HotPrefix
		if k.ThrottledPrefixes > 1 {
			s += fmt.Sprintf(" (%.0f%% of throttled answers, %d prefixes throttled)", 100*k.HotPrefixShare, k.ThrottledPrefixes)
		}
	}
	return s
}
