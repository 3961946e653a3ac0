// Package threshold is objbench's pass/fail criteria for CI, as k6's
// thresholds and benchstat's significance give: --threshold expressions
// checked against a finished document, and compare's --fail-if checked
// against the steps of a comparison.
//
// A threshold is METRIC OP VALUE:
//
//	METRIC  errors                     failed operations: a count, or with VALUE in % a rate
//	        OP.NAME[.STAT]             one field of every step of op OP (get, put, head, delete, list),
//	                                   or of any step with "all"; on strategies OP may also be a
//	                                   strategy (http2.put.p50)
//	        explain.NAME               a field of explain's body
//	NAME    ttfb, total, a phase (dns, connect, tls, send, wait100, wait, recv) with STAT p50, p90,
//	        p99, p999, min, max, mean; mb_per_s.p50; agg_mb_per_s; reused; or any number the JSON
//	        row holds (count, requests_per_op, wall_s, connections, ...)
//	OP      <  <=  >  >=
//	VALUE   a number in the metric's unit, or 150ms, 2s, 500us, 0.1%, 2*rtt (the lab's round trip)
//
// When several steps match, every one must pass: the worst is reported.
package threshold

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
)

// Kinds of document a threshold may be checked against.
const (
	Run        = "run" // run and probe: result rows
	Strategies = "strategies"
	Explain    = "explain"
)

// Threshold is one parsed --threshold expression.
type Threshold struct {
	Expr     string
	selector string   // "errors", "explain", an op, "all", a strategy
	stratOp  string   // strategies: the op after a strategy (http2.put.p50)
	path     []string // inside the row (or explain's body)
	op       string
	value    float64 // in the metric's unit, unless rtt
	rtt      bool    // value is a multiple of the round trip
	percent  bool
}

var exprRE = regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+)\s*(<=|>=|<|>)\s*(.+?)\s*$`)

// Parse reads the expressions for a document of kind; an error names the
// expression and what is wrong with it, before anything runs.
func Parse(exprs []string, kind string) ([]Threshold, error) {
	var out []Threshold
	for _, e := range exprs {
		t, err := parse(e, kind)
		if err != nil {
			return nil, fmt.Errorf("--threshold %q: %w", e, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func parse(expr, kind string) (Threshold, error) {
	m := exprRE.FindStringSubmatch(expr)
	if m == nil {
		return Threshold{}, fmt.Errorf("use METRIC<VALUE, e.g. 'get.ttfb.p99<150ms' or 'errors<0.1%%' (operators < <= > >=)")
	}
	t := Threshold{Expr: strings.TrimSpace(expr), op: m[2]}
	segs := strings.Split(strings.ToLower(m[1]), ".")
	t.selector, t.path = segs[0], segs[1:]
	if err := t.parseValue(m[3]); err != nil {
		return t, err
	}
	switch {
	case t.selector == "errors" && len(t.path) == 0:
		if t.rtt || unitOfValue(m[3]) == "time" {
			return t, fmt.Errorf("errors is a count or, in %%, a rate: not a time")
		}
		if t.percent {
			return t, t.canFail("errors", 0, 1)
		}
		return t, t.canFail("errors", 0, math.Inf(1))
	case t.selector == "explain":
		if kind != Explain {
			return t, fmt.Errorf("explain.* is for explain; this command measures steps: use e.g. get.ttfb.p99")
		}
	case kind == Explain:
		return t, fmt.Errorf("explain's metrics are explain.NAME (e.g. explain.connections_per_object) and errors")
	case !validSelector(t.selector, kind):
		return t, fmt.Errorf("unknown op %q: use get, put, head, delete, list or all%s", t.selector, map[bool]string{true: ", or a strategy"}[kind == Strategies])
	case kind == Strategies && len(t.path) > 1 && validSelector(t.path[0], Run) && t.path[0] != "all":
		t.stratOp, t.path = t.path[0], t.path[1:]
	}
	switch {
	case len(t.path) == 0 && t.selector == "explain":
		return t, fmt.Errorf("name what of explain to check, e.g. explain.connections_per_object")
	case len(t.path) == 0:
		return t, fmt.Errorf("name what of %s to check, e.g. %s.ttfb.p99 or %s.agg_mb_per_s", t.selector, t.selector, t.selector)
	}
	sample := zeroRow(kind)
	if t.selector == "explain" {
		sample = zeroJSON(document.Explain{})
	}
	path, v := resolve(sample, t.path)
	if v == nil {
		return t, fmt.Errorf("unknown metric %q%s", strings.Join(t.path, "."), hint(sample, t.path))
	}
	if t.rtt || unitOfValue(m[3]) == "time" {
		if u := unit(path); u != "ms" && u != "s" {
			return t, fmt.Errorf("%s is not a time: give a plain number", strings.Join(path, "."))
		}
		if unit(path) == "s" && !t.rtt {
			t.value /= 1000 // times are parsed to ms
		}
	}
	name := strings.Join(t.path, ".")
	switch last := path[len(path)-1]; {
	case strings.HasSuffix(last, "fraction"):
		return t, t.canFail(name, 0, 1)
	case unit(path) != "": // times and rates
		return t, t.canFail(name, 0, math.Inf(1))
	}
	return t, nil
}

// canFail refuses a threshold that passes whatever is measured, the
// metric (name) lying within [lo, hi]: errors < 200% or a time > -1ms is
// a gate that never closes, a mistake as an unknown metric is.
func (t Threshold) canFail(name string, lo, hi float64) error {
	v := t.value
	var never bool
	switch t.op {
	case "<":
		never = hi < v
	case "<=":
		never = hi <= v
	case ">":
		never = v < lo
	case ">=":
		never = v <= lo
	}
	if !never {
		return nil
	}
	within := fmt.Sprintf("at least %g", lo)
	if !math.IsInf(hi, 1) {
		within = fmt.Sprintf("from %g to %g", lo, hi)
		if t.percent {
			within = fmt.Sprintf("from %g%% to %g%%", lo*100, hi*100)
		}
	}
	return fmt.Errorf("%s is %s: this threshold can never fail", name, within)
}

var strategyNames = []string{load.SDKDefault, load.SingleRequest, load.ReusedConnection, load.ParallelRequests, load.HTTP2}

func validSelector(s, kind string) bool {
	switch s {
	case "get", "put", "head", "delete", "list", "all":
		return true
	}
	if kind == Strategies {
		for _, n := range strategyNames {
			if s == n {
				return true
			}
		}
	}
	return false
}

var valueRE = regexp.MustCompile(`^(?i)([-+]?[0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)?\s*(\*\s*rtt|rtt|%|[a-zµ]+)?$`)

func unitOfValue(v string) string {
	m := valueRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return ""
	}
	switch strings.ToLower(m[2]) {
	case "ns", "us", "µs", "ms", "s", "m", "h":
		return "time"
	}
	return ""
}

func (t *Threshold) parseValue(v string) error {
	m := valueRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil || (m[1] == "" && !strings.EqualFold(m[2], "rtt")) {
		return fmt.Errorf("bad value %q: use a number, with ms, s, us, %% or *rtt (e.g. 150ms, 0.1%%, 2*rtt)", v)
	}
	n := 1.0
	if m[1] != "" {
		var err error
		if n, err = strconv.ParseFloat(m[1], 64); err != nil {
			return fmt.Errorf("bad number %q", m[1])
		}
	}
	switch u := strings.ToLower(strings.ReplaceAll(m[2], " ", "")); u {
	case "":
	case "%":
		t.percent, n = true, n/100
	case "*rtt", "rtt":
		t.rtt = true
	default:
		d, err := time.ParseDuration(m[1] + u)
		if err != nil {
			return fmt.Errorf("bad unit %q: use ms, s, us, %% or *rtt", m[2])
		}
		n = float64(d) / float64(time.Millisecond)
	}
	t.value = n
	return nil
}

// aliases are the short names of row fields.
var aliases = map[string]string{"ttfb": "ttfb_ms", "total": "total_ms", "agg_mb_per_s": "aggregate_mb_per_s", "reused": "reused_fraction",
	"p50": "p50_ms", "p99": "p99_ms", "phases": "phases_ms", "rtts": "rtts"}

var phases = nettrace.PhaseNames()

// resolve follows path into v (a JSON value), with the aliases, a phase
// name standing for phases_ms.NAME; it returns the path as the JSON has it
// and the number there (nil when there is none).
func resolve(v any, path []string) ([]string, *float64) {
	var out []string
	for i := 0; i < len(path); i++ {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, nil
		}
		k := path[i]
		if _, ok := obj[k]; !ok {
			if a, ok := aliases[k]; ok {
				k = a
			}
		}
		if _, ok := obj[k]; !ok {
			if p, ok := obj["phases_ms"].(map[string]any); ok {
				if _, ok := p[path[i]]; ok {
					out = append(out, "phases_ms")
					v, k = p, path[i]
					obj = p
				}
			}
		}
		next, ok := obj[k]
		if !ok {
			return nil, nil
		}
		out = append(out, k)
		v = next
	}
	f, ok := v.(float64)
	if !ok {
		return out, nil
	}
	return out, &f
}

// unit is the unit of a resolved path: ms, s, MB/s or "".
func unit(path []string) string {
	if len(path) == 0 {
		return ""
	}
	for _, p := range path {
		if p == "phases_ms" || strings.HasSuffix(p, "_ms") {
			return "ms"
		}
		if p == "mb_per_s" || p == "aggregate_mb_per_s" {
			return "MB/s"
		}
	}
	if last := path[len(path)-1]; strings.HasSuffix(last, "_per_s") {
		return "/s" // a rate: knee.rate_ops_per_s
	} else if strings.HasSuffix(last, "_s") {
		return "s"
	}
	return ""
}

func hint(sample any, path []string) string {
	if len(path) == 1 {
		if _, v := resolve(sample, []string{path[0], "p50"}); v != nil {
			return fmt.Sprintf(": %s needs a statistic, e.g. %s.p99", path[0], path[0])
		}
	}
	return ": use ttfb.p99, total.p50, a phase (wait.p99), mb_per_s.p50, agg_mb_per_s, reused, errors or a number of the JSON row"
}

// zeroJSON is v as the JSON decoder gives it back.
func zeroJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// zeroRow is an empty step row of kind, with every phase, to check names.
func zeroRow(kind string) any {
	if kind == Strategies {
		return zeroJSON(document.StrategyRow{})
	}
	// The knee's figures are metrics too (get.knee.rate_ops_per_s), of
	// the rows that have one.
	r := document.Result{PhasesMs: map[string]document.PhaseDist{}, Knee: &document.Knee{}}
	for _, p := range phases {
		r.PhasesMs[p] = document.PhaseDist{}
	}
	return zeroJSON(r)
}

// Check evaluates ts against d and returns one result per threshold; ok
// is false when any failed.
func Check(ts []Threshold, d document.Doc) (res []document.ThresholdResult, ok bool) {
	if len(ts) == 0 {
		return nil, true
	}
	doc, _ := zeroJSON(document.Clean(d)).(map[string]any)
	ok = true
	for _, t := range ts {
		r := t.check(doc)
		ok = ok && r.Pass
		res = append(res, r)
	}
	return res, ok
}

// rows are the document's step rows (results or strategies) with a name each.
func rows(doc map[string]any) (out []map[string]any) {
	for _, key := range []string{"results", "strategies"} {
		list, _ := doc[key].([]any)
		for _, r := range list {
			if m, ok := r.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func rowName(r map[string]any) string {
	s := func(k string) string { v, _ := r[k].(string); return v }
	n := s("op")
	if st := s("strategy"); st != "" && r["workload"] == nil {
		n = st + " " + n
	} else if w := s("workload"); w != "" {
		n = w + " " + n
	}
	if b, ok := r["size_bytes"].(float64); ok {
		n += " " + strconv.FormatFloat(b, 'f', -1, 64) + "B"
	}
	if c, ok := r["concurrency"].(float64); ok && c > 1 {
		n += fmt.Sprintf(" c=%g", c)
	}
	return n
}

func (t Threshold) matches(r map[string]any) bool {
	op, _ := r["op"].(string)
	st, _ := r["strategy"].(string)
	_, isStrategy := r["speedup"]
	switch {
	case t.stratOp != "" && t.stratOp != op:
		return false
	case t.selector == "all" || t.selector == op:
		return true
	}
	return isStrategy && t.selector == st
}

func (t Threshold) check(doc map[string]any) document.ThresholdResult {
	r := document.ThresholdResult{Expr: t.Expr, Limit: t.value}
	if t.rtt {
		rtt, ok := labRTT(doc) // ms
		if !ok {
			r.Error = "no round trip known (rtt is the lab's): give a time instead"
			return r
		}
		r.Limit = t.value * rtt
	}
	var vals []float64
	var names []string
	switch t.selector {
	case "errors":
		failed, all := errorCounts(doc)
		v := failed
		if t.percent {
			v = 0
			if all > 0 {
				v = failed / all
			}
			r.Unit = "fraction"
		}
		vals, names = []float64{v}, []string{""}
	case "explain":
		body := doc["explain"]
		path, v := resolve(body, t.path)
		if v == nil {
			r.Error = "not in the document"
			return r
		}
		r.Unit = unit(path)
		vals, names = []float64{*v}, []string{""}
	default:
		for _, row := range rows(doc) {
			if !t.matches(row) {
				continue
			}
			if avail, ok := row["available"].(bool); ok && !avail {
				continue
			}
			path, v := resolve(row, t.path)
			if v == nil {
				continue
			}
			r.Unit = unit(path)
			vals, names = append(vals, *v), append(names, rowName(row))
		}
	}
	if len(vals) == 0 {
		r.Error = "no step measured it"
		return r
	}
	if t.rtt && r.Unit == "s" {
		r.Limit /= 1000
	}
	worst := 0
	for i, v := range vals {
		if (t.op[0] == '<' && v > vals[worst]) || (t.op[0] == '>' && v < vals[worst]) {
			worst = i
		}
	}
	r.Measured, r.Step = vals[worst], names[worst]
	r.Pass = compare(r.Measured, t.op, r.Limit)
	return r
}

func compare(v float64, op string, limit float64) bool {
	if math.IsNaN(v) {
		return false
	}
	switch op {
	case "<":
		return v < limit
	case "<=":
		return v <= limit
	case ">":
		return v > limit
	}
	return v >= limit
}

// labRTT is the round trip of the lab that served the document, in ms.
func labRTT(doc map[string]any) (float64, bool) {
	if e, ok := doc["explain"].(map[string]any); ok {
		if v, ok := e["rtt_ms"].(float64); ok && v > 0 {
			return v, true
		}
	}
	if l, ok := doc["lab"].(map[string]any); ok {
		if v, ok := l["rtt_ms"].(float64); ok && v > 0 {
			return v, true
		}
	}
	return 0, false
}

// errorCounts are the failed operations and all operations of a document.
func errorCounts(doc map[string]any) (failed, all float64) {
	if e, ok := doc["explain"].(map[string]any); ok {
		f, _ := e["errors"].(float64)
		n, _ := e["requests"].(float64)
		return f, n
	}
	for _, r := range rows(doc) {
		f, _ := r["errors"].(float64)
		n, _ := r["count"].(float64)
		if _, isStrategy := r["speedup"]; isStrategy {
			n, _ = r["objects"].(float64)
			n -= f // objects counts every attempt
		}
		failed += f
		all += n + f
	}
	return failed, all
}

// String is the line printed for a checked threshold.
func String(r document.ThresholdResult) string {
	verdict := "pass"
	if !r.Pass {
		verdict = "FAIL"
	}
	if r.Error != "" {
		return fmt.Sprintf("threshold %s: %s (%s)", r.Expr, verdict, r.Error)
	}
	val := strconv.FormatFloat(round(r.Measured), 'f', -1, 64)
	switch r.Unit {
	case "fraction":
		val = strconv.FormatFloat(round(r.Measured*100), 'f', -1, 64) + "%"
	case "":
	default:
		val += " " + r.Unit
	}
	s := fmt.Sprintf("threshold %s: %s, measured %s", r.Expr, verdict, val)
	if r.Step != "" {
		s += " (" + r.Step + ")"
	}
	return s
}

func round(v float64) float64 { return math.Round(v*1000) / 1000 }

// Usage is --threshold's help line.
const Usage = "pass/fail criterion checked after the run (repeatable; a failure exits 1), e.g. 'get.ttfb.p99<150ms', " +
	"'put.total.p50<2*rtt', 'errors<0.1%', 'get.agg_mb_per_s>500', 'explain.connections_per_object<=0.1'; see --help"

// Set is the --threshold flag of one command: each expression is parsed as
// the flag is given, so a bad one is a usage error before anything runs.
// It implements pflag.Value.
type Set struct {
	Kind string
	List []Threshold
}

// NewSet is an empty flag for documents of kind.
func NewSet(kind string) *Set { return &Set{Kind: kind} }

// Set parses and adds one expression.
func (s *Set) Set(expr string) error {
	t, err := parse(expr, s.Kind)
	if err != nil {
		return err
	}
	s.List = append(s.List, t)
	return nil
}

// String lists the expressions.
func (s *Set) String() string {
	if s == nil {
		return ""
	}
	var out []string
	for _, t := range s.List {
		out = append(out, t.Expr)
	}
	return strings.Join(out, ", ")
}

// Type names the flag's value in --help.
func (s *Set) Type() string { return "EXPR" }

// Apply checks the thresholds against each document, records the results
// in its envelope (so its JSON and saved run carry them), prints one line
// each to w (naming the target when there are several documents, as a
// probe of several targets gives) and returns an error saying how many failed (nil when none
// failed or none was given).
func (s *Set) Apply(w io.Writer, docs ...document.Doc) error {
	if s == nil || len(s.List) == 0 {
		return nil
	}
	failed, n := 0, 0
	for _, d := range docs {
		res, _ := Check(s.List, d)
		d.Head().Thresholds = res
		for _, r := range res {
			n++
			if !r.Pass {
				failed++
			}
			if len(docs) > 1 {
				fmt.Fprintf(w, "%s: ", d.Head().Target.URL)
			}
			fmt.Fprintln(w, String(r))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d thresholds failed", failed, n)
	}
	return nil
}

// For sets the kind of documents s checks and returns s, to register it.
func (s *Set) For(kind string) *Set {
	s.Kind = kind
	return s
}
