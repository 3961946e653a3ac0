package threshold

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/stats"
)

// FailIf is compare's --fail-if: a change of a step's p50 or p99 from run
// A to run B that fails the comparison when the bootstrap interval says
// it is significant (and, for p50, Mann-Whitney where raw samples allow)
// and its size is beyond the given one.
//
//	slower          p50 significantly slower, by any amount
//	faster          p50 significantly faster
//	p99>+10%        p99 significantly slower by more than 10%
//	p50>+5ms        p50 significantly slower by more than 5 ms
//	p50<-20%        p50 significantly faster by more than 20%
type FailIf struct {
	Expr    string
	stat    string // p50 or p99
	op      byte   // '>' slower, '<' faster
	size    float64
	percent bool
}

var failIfRE = regexp.MustCompile(`^(p50|p99)\s*([<>])\s*([-+]?[0-9]*\.?[0-9]+)\s*(%|ms|s|us)$`)

// ParseFailIf reads --fail-if.
func ParseFailIf(s string) (FailIf, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	switch e {
	case "slower":
		return FailIf{Expr: e, stat: "p50", op: '>'}, nil
	case "faster":
		return FailIf{Expr: e, stat: "p50", op: '<'}, nil
	}
	m := failIfRE.FindStringSubmatch(e)
	if m == nil {
		return FailIf{}, fmt.Errorf("--fail-if %q: use slower, faster, or p50|p99 > or < a change such as +10%% or +5ms (e.g. 'p99>+10%%')", s)
	}
	f := FailIf{Expr: e, stat: m[1], op: m[2][0]}
	v, _ := strconv.ParseFloat(m[3], 64)
	if (f.op == '>' && v < 0) || (f.op == '<' && v > 0 && strings.HasPrefix(m[3], "+")) {
		return FailIf{}, fmt.Errorf("--fail-if %q: > is a slow-down (+), < a speed-up (-)", s)
	}
	if f.op == '<' && v > 0 {
		v = -v
	}
	switch m[4] {
	case "%":
		f.percent, v = true, v/100
	default:
		d, _ := time.ParseDuration(m[3] + m[4])
		v = float64(d) / float64(time.Millisecond)
	}
	f.size = v
	return f, nil
}

// Failures are the steps of c whose change trips f, one line each.
func (f FailIf) Failures(c analysis.Comparison) []string {
	var out []string
	for _, s := range c.Steps {
		ch, sig := s.DeltaP50, analysis.Significant(s.DeltaP50, s.MannWhitneyP)
		if f.stat == "p99" {
			ch, sig = s.DeltaP99, s.DeltaP99.Significant()
		}
		if !sig || !f.beyond(ch) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s %+.3g ms (%+.1f%%, 95%% CI %+.3g to %+.3g ms) from %s to %s",
			strings.TrimSpace(s.Step), f.stat, ch.Delta, ch.Relative*100, ch.Lo, ch.Hi, c.A, c.B))
	}
	return out
}

func (f FailIf) beyond(ch stats.Change) bool {
	d := ch.Delta
	if f.percent {
		d = ch.Relative
	}
	if f.op == '>' {
		return d > 0 && d > f.size
	}
	return d < 0 && d < f.size
}

// FailIfUsage is --fail-if's help line.
const FailIfUsage = "exit 1 when a step's change is significant (bootstrap 95% CI) and beyond this: slower, faster, 'p99>+10%', 'p50>+5ms'"

// Set parses --fail-if (pflag.Value).
func (f *FailIf) Set(s string) (err error) {
	*f, err = ParseFailIf(s)
	return err
}

// String is the expression given.
func (f *FailIf) String() string { return f.Expr }

// Type names the flag's value in --help.
func (f *FailIf) Type() string { return "CHANGE" }

// Check prints each step that trips f to w and returns an error counting
// them (nil when f is unset or none does).
func (f *FailIf) Check(w io.Writer, comps []analysis.Comparison) error {
	if f.Expr == "" {
		return nil
	}
	n := 0
	for _, c := range comps {
		for _, line := range f.Failures(c) {
			fmt.Fprintf(w, "fail-if %s: %s\n", f.Expr, line)
			n++
		}
	}
	if n > 0 {
		return fmt.Errorf("--fail-if %s: %d step(s) changed significantly beyond it", f.Expr, n)
	}
	return nil
}
