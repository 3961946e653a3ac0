package terminal

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
)

// WriteIdleJSON writes the idle-timeout search as JSON.
func WriteIdleJSON(w io.Writer, target document.TargetInfo, lab *document.LabInfo, res document.IdleResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(document.NewIdleTimeout(target, lab, res))
}

// WriteIdleText writes the idle-timeout search: the verdict on where's
// timeout (searched up to max), then every probe.
func WriteIdleText(w io.Writer, where string, max time.Duration, res document.IdleResult) error {
	ew := &errWriter{w: w}
	switch {
	case res.Upper == 0:
		fmt.Fprintf(ew, "no idle timeout found at %s: a connection idle for %s was still reused\n", where, max)
	case res.Lower == 0:
		fmt.Fprintf(ew, "%s drops idle connections after less than %s (the shortest probe)\n", where, res.Upper)
	default:
		fmt.Fprintf(ew, "%s drops keep-alive connections idle for between %s and %s: about %.1f s\n",
			where, res.Lower.Round(time.Millisecond), res.Upper.Round(time.Millisecond), res.Estimate().Seconds())
	}
	fmt.Fprintf(ew, "%d probes in %.1f s\n\nround   idle s  next request\n", len(res.Probes), res.Wall.Seconds())
	for _, p := range res.Probes {
		what := "reused the connection"
		switch {
		case p.Err != "":
			what = "error: " + strings.Join(strings.Fields(p.Err), " ")
		case p.Skipped:
			what = "skipped (a shorter idle was already dropped)"
		case !p.Reused:
			what = "opened a new connection (dropped)"
		}
		fmt.Fprintf(ew, "%5d  %7.2f  %s\n", p.Round, p.Idle.Seconds(), what)
	}
	return ew.err
}

// WriteIdle prints idle-timeout's result as JSON (with the target and lab
// blocks) or as text (where it was measured, up to max).
func WriteIdle(w io.Writer, jsonOut bool, target document.TargetInfo, lab *document.LabInfo, where string, max time.Duration, res document.IdleResult) error {
	if jsonOut {
		return WriteIdleJSON(w, target, lab, res)
	}
	return WriteIdleText(w, where, max, res)
}

// IdleRound draws idle-timeout's progress line for a round probing idles,
// the shortest to the longest (load.IdleSearch.Progress).
func (s *StatusLine) IdleRound(round int, idles []time.Duration) {
	s.Printf("round %d: probing %s … %s idle", round, idles[0], idles[len(idles)-1])
}
